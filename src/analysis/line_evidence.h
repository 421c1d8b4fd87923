// The source lines behind a finding: from CUPTI PC sampling by line (ProfileData::line_samples),
// the lines where warps spent the stall reasons the finding's cost shows up as (long scoreboard
// for memory latency, barrier for barriers, lg/drain for atomics, ...), each quoted from the
// candidate's source, trimmed, with its share of the kernel's samples and the sampled SASS
// instructions on it. Findings about the launch itself (grid, occupancy, launch overhead) have
// no line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.h"
#include "analysis/profile_data.h"

namespace kp::analysis {

// The stall reasons (CUPTI's names without the prefix) a tool's cost appears as; empty for the
// tools about the launch; {"*"} (every reason) for a tool this table does not know.
std::vector<std::string_view> stall_reasons_for(std::string_view tool);

// Line `line` of the source, trimmed of surrounding whitespace and shortened to `max_chars`; "" when absent.
std::string quoted_line(const std::vector<std::string>& source, int line, size_t max_chars = 100);

// Up to `limit` lines, the most samples of the tool's reasons first, as source evidence:
//   name "kernel.cu:14", value "atomicAdd(y, x[i]); [61% of samples: lg_throttle 40%, long_scoreboard 21%; RED.E.ADD.F32.FTZ.RN ...]"
// Lines holding under `min_share` of the kernel's samples are left out.
std::vector<Evidence> line_evidence(const Finding& finding, const ProfileData& data, size_t limit = 2, double min_share = 0.05);

// The same evidence added at the front of the finding's evidence (source evidence is read first).
void attach_line_evidence(Finding& finding, const ProfileData& data);

}  // namespace kp::analysis
