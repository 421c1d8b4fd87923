#include "autoprofiler/comparison.h"

#include <sstream>

#include <fmt/format.h>

#include "autoprofiler/learning_run.h"

namespace kp::autoprofiler {

std::vector<NamedBudget> standard_budgets() {
    // The roofline's counters alone take 4 passes on the H200 and the whole fixed plan 8.
    NamedBudget one{"1 pass", {}}, few{"6 passes", {}}, loose{"loose", {}};
    one.budget.passes = 1;
    few.budget.passes = 6;
    return {one, few, loose};
}

std::vector<ComparisonRow> compare_trees(const std::vector<std::pair<std::string, ProfilingTree>>& trees,
                                         const std::vector<KernelRecord>& train, const std::vector<KernelRecord>& held_out,
                                         const CostTable& costs, const std::vector<NamedBudget>& budgets) {
    auto objective = diagnosis_hit_rate();
    std::vector<ComparisonRow> rows;
    for (const auto& b : budgets)
        for (const auto& [name, tree] : trees)
            for (const auto& [set, kernels] : {std::pair{"train", &train}, std::pair{"held-out", &held_out}})
                if (!kernels->empty()) rows.push_back({b.name, name, set, score_tree(tree, *kernels, costs, *objective, b.budget)});
    return rows;
}

std::string render_comparison(const std::vector<ComparisonRow>& rows) {
    std::ostringstream out;
    out << fmt::format("{:<10} {:<10} {:<9} {:>8} {:>6} {:>9} {:>7}\n", "budget", "tree", "kernels", "hit rate", "hits", "seconds", "passes");
    for (const auto& r : rows)
        out << fmt::format("{:<10} {:<10} {:<9} {:>8.3f} {:>3}/{:<2} {:>9.3f} {:>7.2f}\n", r.budget, r.tree, r.set, r.score.hit_rate, r.score.hits,
                           r.score.kernels, r.score.mean_seconds, r.score.mean_passes);
    return out.str();
}

}  // namespace kp::autoprofiler
