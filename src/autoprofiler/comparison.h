// The comparison of trees at equal budgets (issue 13 §5, bench/bench_autoprofile): for each budget
// and tree, the hit rate, mean seconds and passes on the training and the held-out kernels, and
// the tuner's outcome (tuner_outcome.h) on the tuning kernels when there are any.
#pragma once

#include <string>
#include <vector>

#include "autoprofiler/objective.h"

namespace kp::autoprofiler {

struct NamedBudget {
    std::string name;  // "1 pass", "loose", ...
    Budget budget;
};

struct ComparisonRow {
    std::string budget, tree, set;  // set: "train", "held-out" or "tuning"
    Score score;
};

std::vector<NamedBudget> standard_budgets();  // about one replay pass, a few, loose
std::vector<ComparisonRow> compare_trees(const std::vector<std::pair<std::string, ProfilingTree>>& trees,
                                         const std::vector<KernelRecord>& train, const std::vector<KernelRecord>& held_out,
                                         const CostTable& costs, const std::vector<NamedBudget>& budgets,
                                         const std::vector<KernelRecord>& tuning = {}, int tuner_evaluations = 4);
std::string render_comparison(const std::vector<ComparisonRow>& rows);

}  // namespace kp::autoprofiler
