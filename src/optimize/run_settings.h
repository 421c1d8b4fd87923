// What `optimize` and `runs resume` set up the same way: the task's fingerprint (evaluation keys
// change when the task does) and the quick evaluation settings of a search.
#pragma once

#include <string>

#include "eval/evaluator.h"
#include "task/task_spec.h"

namespace kp::optimize {

// task.toml and the reference source, hashed.
std::string task_fingerprint(const TaskSpec& task);

// Quick evaluation settings for search (fewer trials, shorter timing than `eval`'s defaults).
EvaluationOptions search_evaluation_options(int trials, double max_seconds, double min_seconds);

// Energy measurement for search evaluations (on for objectives that need energy, or when asked):
// the candidate's windows only (node 0 is the search's baseline, measured like any node).
EnergyConfig search_energy_config(bool enabled, int windows);

}  // namespace kp::optimize
