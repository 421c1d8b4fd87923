// The comparison of trees at equal budgets (issue 13 §5, bench/bench_autoprofile): for each budget
// and tree, the hit rate, mean seconds and passes on the training and the held-out kernels.
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
    std::string budget, tree, set;  // set: "train" or "held-out"
    Score score;
};

std::vector<NamedBudget> standard_budgets();  // about one replay pass, a few, loose
std::vector<ComparisonRow> compare_trees(const std::vector<std::pair<std::string, ProfilingTree>>& trees,
                                         const std::vector<KernelRecord>& train, const std::vector<KernelRecord>& held_out,
                                         const CostTable& costs, const std::vector<NamedBudget>& budgets);
std::string render_comparison(const std::vector<ComparisonRow>& rows);

}  // namespace kp::autoprofiler
