// MCTS against greedy refinement on a deceptive landscape: the best-looking first step (A) leads
// to a plateau of tiny gains, while a step that is slower at first (B) leads to large ones. Greedy
// keeps polishing A; MCTS explores B because its value is uncertain, and then exploits it.
#include <cmath>

#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

double best_speedup(const std::string& strategy, std::uint64_t seed, int evaluations) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(deceptive);
    FunctionProposer proposer(deceptive_children, 2);
    SearchDriver driver(store, evaluator, proposer);
    auto config = test_config(evaluations, seed);
    config.strategy = strategy;
    auto outcome = driver.start(kTask, kBaseline, config);
    EXPECT_TRUE(outcome);
    if (std::getenv("KP_PRINT_TREE"))
        for (const auto& line : describe_tree(driver.tree())) std::printf("%s reward=%.3f\n", line.c_str(), driver.tree().node(std::stoll(line)).reward);
    return outcome ? outcome->best_speedup_over_baseline : 0.0;
}

}  // namespace

TEST(DeceptiveLandscape, MctsBeatsGreedy) {
    double log_mcts = 0.0, log_greedy = 0.0;
    const int seeds = 5;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const double mcts = best_speedup("mcts", seed, 40);
        const double greedy = best_speedup("greedy", seed, 40);
        std::printf("seed %llu: mcts %.2fx, greedy %.2fx\n", static_cast<unsigned long long>(seed), mcts, greedy);
        EXPECT_GT(mcts, greedy) << "seed " << seed;
        log_mcts += std::log(mcts);
        log_greedy += std::log(greedy);
    }
    const double geomean_mcts = std::exp(log_mcts / seeds), geomean_greedy = std::exp(log_greedy / seeds);
    std::printf("geometric mean: mcts %.2fx, greedy %.2fx\n", geomean_mcts, geomean_greedy);
    EXPECT_LT(geomean_greedy, 1.56);           // greedy never leaves the plateau
    EXPECT_GT(geomean_mcts, 1.5 * geomean_greedy);
}

TEST(PlateauLandscape, MctsBeatsGreedyOnAverage) {
    // Twelve landscapes where rewrites start algorithm families with different ceilings: greedy
    // settles in the first family that looks good; MCTS keeps trying other families.
    double log_mcts = 0.0, log_greedy = 0.0;
    const int landscapes = 12;
    for (int i = 0; i < landscapes; ++i) {
        for (std::string strategy : {"mcts", "greedy"}) {
            kp::test_support::TempDirectory dir;
            auto store = open_store(dir.path() / "runs.db");
            FunctionEvaluator evaluator(plateau);
            FunctionProposer proposer(uniform_children(4), 3);
            SearchDriver driver(store, evaluator, proposer);
            auto config = test_config(40, 1);
            config.strategy = strategy;
            auto outcome = driver.start(kTask, {"s" + std::to_string(i), {}}, config);
            ASSERT_TRUE(outcome);
            (strategy == "mcts" ? log_mcts : log_greedy) += std::log(outcome->best_speedup_over_baseline);
        }
    }
    const double mcts = std::exp(log_mcts / landscapes), greedy = std::exp(log_greedy / landscapes);
    std::printf("plateau geometric mean: mcts %.2fx, greedy %.2fx\n", mcts, greedy);
    EXPECT_GT(mcts, 1.2 * greedy);
}
