#include "autoprofiler/comparison.h"

#include <sstream>

#include <fmt/format.h>

#include "autoprofiler/learning_run.h"
#include "autoprofiler/tuner_outcome.h"

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
                                         const CostTable& costs, const std::vector<NamedBudget>& budgets,
                                         const std::vector<KernelRecord>& tuning, int tuner_evaluations) {
    auto hit_rate = diagnosis_hit_rate();
    auto tuner = tuner_outcome(tuner_evaluations);
    std::vector<ComparisonRow> rows;
    for (const auto& b : budgets)
        for (const auto& [name, tree] : trees) {
            for (const auto& [set, kernels] : {std::pair{"train", &train}, std::pair{"held-out", &held_out}})
                if (!kernels->empty()) rows.push_back({b.name, name, set, score_tree(tree, *kernels, costs, *hit_rate, b.budget)});
            if (!tuning.empty()) rows.push_back({b.name, name, "tuning", score_tree(tree, tuning, costs, *tuner, b.budget)});
        }
    return rows;
}

std::string render_comparison(const std::vector<ComparisonRow>& rows) {
    std::ostringstream out;
    out << fmt::format("{:<10} {:<14} {:<9} {:>8} {:>6} {:>7} {:>9} {:>7}\n", "budget", "tree", "kernels", "hit rate", "hits", "tuner", "seconds",
                       "passes");
    for (const auto& r : rows) {
        // A row scores either the diagnosis (labelled kernels) or the tuner (tuning kernels).
        const bool tuning = r.score.tuned > 0;
        out << fmt::format("{:<10} {:<14} {:<9} {:>8} {:>6} {:>7} {:>9.3f} {:>7.2f}\n", r.budget, r.tree, r.set,
                           tuning ? "-" : fmt::format("{:.3f}", r.score.hit_rate),
                           tuning ? "-" : fmt::format("{:>3}/{:<2}", r.score.hits, r.score.kernels),
                           tuning ? fmt::format("{:.3f}x", r.score.tuner_speedup) : "-", r.score.mean_seconds, r.score.mean_passes);
    }
    return out.str();
}

}  // namespace kp::autoprofiler
