// Tuning kernels, for the tuner-outcome objective (issue 13 §3b): a kp:tune candidate at one start
// point, with the counters recorded there (what a tree walks) and a run of the exhaustive proposer
// that timed every point of its space on the same GPU (`kernelpro runs show ID --json`, schema
// kernelpro.run/1): the table the simulated tuner looks its evaluations up in. The manifest
// (tests/fixtures/h200-tuning/manifest.toml) lists them; docs/autoprofiler.md says how to record more.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "autoprofiler/kernel_record.h"
#include "common/result.h"
#include "search/evaluation_outcome.h"

namespace kp::autoprofiler {

struct TuningTable {
    std::string task;                                   // the task's name
    std::filesystem::path task_dir;                     // its folder (what a judge evaluates a rewrite against)
    std::string source;                                 // the candidate's text: its kp:tune space
    std::map<std::string, std::string> start;           // the start point, every parameter named
    std::map<std::string, search::EvaluationOutcome> by_point;  // point_text -> the run's evaluation there
};

// The run's evaluations by point, from a kernelpro.run/1 file. Errors name the file.
Result<std::map<std::string, search::EvaluationOutcome>> load_run_table(const std::filesystem::path& run_json);

// Every manifest kernel (or those named in `only`), built at its start point here, its counters
// replayed and diagnosed with every tool. Needs nvcc and the SASS tools, not a GPU.
Result<std::vector<KernelRecord>> load_tuning_records(const std::filesystem::path& manifest, const std::vector<std::string>& only = {});

}  // namespace kp::autoprofiler
