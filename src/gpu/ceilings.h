// Device ceilings: the best rates the GPU reaches on simple, known workloads (DRAM copy, L2 reads,
// FP32/FP64 FMA loops, cuBLAS tensor-core GEMMs). The roofline classifier compares kernels against
// these measured numbers rather than datasheet peaks. Produced by the kernelpro-ceilings helper
// (src/gpu/ceilings/) as JSON; this is the parsed form, the cache and the datasheet fallback.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"
#include "gpu/device_info.h"

namespace kp::gpu {

// One measured (or datasheet) rate.
struct Ceiling {
    std::string name;               // "dram_copy", "l2_read", "fp32_fma", "fp64_fma", "tensor_bf16", "tensor_fp16"
    double value = 0.0;             // in `unit`
    std::string unit;               // "byte/s" or "flop/s"
    std::string method;             // one line: what was run
    double median_seconds = 0.0;    // of one timed repetition
    double min_seconds = 0.0;
    double max_seconds = 0.0;
    int repetitions = 0;
    double work_per_repetition = 0; // bytes or flops
    std::optional<double> sm_clock_mhz_mean;  // NVML samples taken while it ran
    std::optional<double> sm_clock_mhz_min;
    std::optional<double> power_watts_mean;
    std::vector<std::string> clock_event_reasons;  // seen in any sample
    std::string skipped;            // non-empty when not measured, with the reason
};

struct DeviceCeilings {
    std::string schema = "kernelpro.ceilings.v1";
    std::string source;             // "measured" or "datasheet"
    std::string label;              // shown to users, e.g. "H200 SXM datasheet values (no GPU found)"
    DeviceInfo device;
    std::string driver_version;     // NVML's string, e.g. "580.159.04"
    int cuda_runtime_version = 0;
    std::string measured_at;        // ISO-8601 UTC
    std::vector<Ceiling> ceilings;

    const Ceiling* find(const std::string& name) const;
    // Convenience: the value of a ceiling, or nullopt when absent or skipped.
    std::optional<double> value(const std::string& name) const;
};

void to_json(nlohmann::json& j, const Ceiling& c);
void from_json(const nlohmann::json& j, Ceiling& c);
void to_json(nlohmann::json& j, const DeviceCeilings& c);
void from_json(const nlohmann::json& j, DeviceCeilings& c);

Result<DeviceCeilings> parse_ceilings_json(const std::string& text);

// H200 SXM numbers from the datasheet and docs/device.md (dense tensor rates at 1.83 GHz),
// labelled as such. DRAM is the datasheet 4.8 TB/s, L2 the 10.3 TB/s derived from ncu peaks.
DeviceCeilings h200_datasheet_ceilings(const std::string& why);


}  // namespace kp::gpu
