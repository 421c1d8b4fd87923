// bench_eval --sandbox-cost: what the sandbox around candidate code costs per evaluation. Each
// task's candidates/fast.cu is evaluated with the sandbox on and off (KERNELPRO_SANDBOX_DISABLE=all),
// alternating, cache warm; a sandbox_check worker (no GPU) measures the start-up part alone.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "build/candidate_builder.h"

namespace kp::bench {

// Prints a table; returns the process exit code. `json_out` (if not empty) gets every number.
// `only`, when not empty, names the tasks to measure.
int run_sandbox_cost(CandidateBuilder& builder, const std::vector<std::filesystem::path>& task_dirs,
                     const std::vector<std::string>& only, int repeats, const std::string& json_out);

}  // namespace kp::bench
