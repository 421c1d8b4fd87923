// Runs a search driver (driver.start or driver.resume, in `go`) with the live progress line on
// stderr and Ctrl-C handling, then writes the run's outputs and OUT/report.html (from `store`);
// returns the command's exit code.
// Shared by `optimize` and `runs resume`; defined in cmd_optimize.cpp.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "common/result.h"
#include "optimize/gpu_evaluator.h"
#include "search/search_driver.h"
#include "store/run_store.h"

namespace kp::cli {

int run_search_session(search::SearchDriver& driver, store::RunStore& store, optimize::GpuEvaluator& evaluator,
                       const std::string& task_name,
                       const std::filesystem::path& out_dir, bool quiet,
                       const std::function<Result<search::SearchOutcome>()>& go);

}  // namespace kp::cli
