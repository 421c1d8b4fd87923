// On demand only (DISABLED_): the experiment behind the search's default constants (exploration
// c, max-backup weight w, widening rules), on the three synthetic landscapes. docs/search.md quotes
// its output. Run with:
//   search_tests --gtest_also_run_disabled_tests --gtest_filter='*ConstantsExperiment*'
#include <cmath>
#include <cstdio>

#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

enum class Landscape { deceptive, rugged, plateau };

double best_of(SearchConfig config, Landscape landscape, const std::string& root) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(landscape == Landscape::deceptive ? FunctionEvaluator::Function(deceptive)
                                : landscape == Landscape::plateau ? FunctionEvaluator::Function(plateau)
                                                                  : [](const Candidate& c) { return rugged_outcome(c.source); });
    FunctionProposer proposer(landscape == Landscape::deceptive ? FunctionProposer::Children(deceptive_children)
                                                                : uniform_children(4),
                              landscape == Landscape::deceptive ? 2 : 3);
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.start(kTask, {root, {}}, config);
    return outcome ? outcome->best_speedup_over_baseline : 0.0;
}

// Geometric mean of the best speedup over `count` landscapes salted by root name.
double geomean(const SearchConfig& config, Landscape landscape, int count) {
    double sum = 0.0;
    for (int i = 0; i < count; ++i) sum += std::log(best_of(config, landscape, "s" + std::to_string(i)));
    return std::exp(sum / count);
}

}  // namespace

TEST(ConstantsExperiment, DISABLED_Grid) {
    struct Widening { WideningRule parameter, rewrite; };
    for (auto widening : {Widening{{1.0, 0.5}, {0.5, 0.5}}, Widening{{1.0, 0.4}, {0.5, 0.4}}, Widening{{2.0, 0.5}, {1.0, 0.35}}})
        for (double c : {0.1, 0.2, 0.3, 0.5})
            for (double w : {0.0, 0.5, 0.75, 1.0}) {
                auto config = test_config(40, 1);
                config.exploration = c;
                config.max_backup_weight = w;
                config.parameter_widening = widening.parameter;
                config.rewrite_widening = widening.rewrite;
                auto greedy = config;
                greedy.strategy = "greedy";
                std::printf(
                    "widening p(%.1f,%.2f) r(%.1f,%.2f) c=%.2f w=%.2f | deceptive %.2f | rugged mcts %.2f greedy %.2f"
                    " | plateau mcts %.2f greedy %.2f\n",
                    widening.parameter.k, widening.parameter.alpha, widening.rewrite.k, widening.rewrite.alpha, c, w,
                    best_of(config, Landscape::deceptive, "root"), geomean(config, Landscape::rugged, 12),
                    geomean(greedy, Landscape::rugged, 12), geomean(config, Landscape::plateau, 12),
                    geomean(greedy, Landscape::plateau, 12));
            }
}
