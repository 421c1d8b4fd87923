// One evaluation of a finished kernel against every baseline its task has: for a PyTorch task the
// eager module (the reference, interleaved as usual) and torch.compile of it, both in the same
// worker as the kernel, under the same inputs, cold-L2 samples and stopping rule; for other tasks
// the task's reference kernel. `optimize` and `bench` report their final speedups from this.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/result.h"
#include "eval/evaluator.h"
#include "task/task_spec.h"

namespace kp::kernelbench {

struct BaselineTimes {
    std::optional<double> eager, compile, best;  // median seconds (eager: the reference for non-PyTorch tasks)
    std::optional<double> roofline_fraction;     // floor / best
    EvaluationReport report;
    std::optional<double> speedup_over_eager() const;
    std::optional<double> speedup_over_compile() const;
};

// "eager 3.01 ms, torch.compile 2.95 ms, best 1.20 ms: 2.51x over eager, 2.46x over compile"
std::string baselines_line(const BaselineTimes& times);

// optimize's last step for a PyTorch task: OUT/baselines.json and the line, or why not.
std::string time_best_against_baselines(kp::Evaluator& evaluator, const TaskSpec& task, const std::filesystem::path& out_dir);

Result<BaselineTimes> time_against_baselines(kp::Evaluator& evaluator, const TaskSpec& task, const std::filesystem::path& kernel,
                                             bool compile_baseline = true, int trials = 5, double max_seconds = 3.0);

}  // namespace kp::kernelbench
