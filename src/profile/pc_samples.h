// CUPTI PC sampling, as the worker answers it (libkp_counters.so's kp_counters_sample_pcs): per
// kernel function and PC offset, the warps sampled there by stall reason; and the same per line
// of the candidate's source, through nvdisasm's line info (SassFunction), which is what a finding
// quotes: the line to change and the SASS instructions behind its cost.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"
#include "profile/sass_program.h"

namespace kp::profile {

struct PcSample {
    std::string function;        // mangled, as CUPTI names it
    std::uint64_t pc_offset = 0; // from the function's start
    std::map<std::string, std::uint64_t> stalls;  // "long_scoreboard" -> samples
    std::uint64_t samples() const;
};

struct PcSampling {
    std::vector<PcSample> samples;
    std::uint64_t total_samples = 0;
    std::uint64_t dropped_samples = 0;
    int sampling_period = 0;  // 2^period cycles between samples of one SM
};

// "long_scoreboard" from CUPTI's "smsp__pcsamp_warps_issue_stalled_long_scoreboard" (other names as given).
std::string stall_reason_name(const std::string& cupti_name);

// {"total_samples": n, "dropped_samples": n, "sampling_period": p,
//  "pcs": [{"function": "_Z..", "pc_offset": 272, "stalls": {"long_scoreboard": 12, ...}}, ...]}
Result<PcSampling> pc_sampling_from_json(const nlohmann::json& j);

struct LineSamples {
    SourceLocation location;
    std::uint64_t samples = 0;
    std::map<std::string, std::uint64_t> stalls;
    std::vector<std::uint64_t> offsets;  // the sampled instructions on the line (function offsets), hottest first
};

struct KernelLineSamples {
    std::vector<LineSamples> lines;  // most samples first
    std::uint64_t samples = 0;       // all of the function's samples
    std::uint64_t without_line = 0;  // samples at PCs without line info
};

// The samples of `function` (matched by its mangled name) grouped by source line.
KernelLineSamples samples_by_line(const PcSampling& sampling, const SassFunction& function);

}  // namespace kp::profile
