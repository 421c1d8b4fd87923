// What a finished search leaves behind: OUT/best.cu (the best source with its parameters baked in as
// #defines), OUT/best.json (its evaluation report) and OUT/summary.md; and the live progress line.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"
#include "optimize/gpu_evaluator.h"
#include "search/search_driver.h"
#include "search/search_progress.h"

namespace kp::optimize {

// Returns true when a correct kernel was found.
Result<bool> write_run_outputs(const search::SearchDriver& driver, const search::SearchOutcome& outcome,
                               const GpuEvaluator& evaluator, const std::string& task_name,
                               const std::filesystem::path& out_dir);

// One progress line: iteration, evaluations, best speedup, % of roofline floor, elapsed.
std::string format_progress(const search::SearchProgress& progress);

}  // namespace kp::optimize
