// The seed decides ties. (Same seed, same tree; and stop-and-resume equals never stopping: for
// every selection policy, in selection_policy_test.cpp.)
#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

TEST(Determinism, SeedBreaksTiesDifferently) {
    // On a flat landscape every UCT comparison is a tie, so the seed decides the shape.
    auto flat_run = [](std::uint64_t seed, const std::filesystem::path& path) {
        auto store = open_store(path);
        FunctionEvaluator evaluator([](const Candidate&) { return correct_outcome(1.0); });
        FunctionProposer proposer(uniform_children(3), 6);
        SearchDriver driver(store, evaluator, proposer);
        auto config = test_config(40, seed);
        config.dead_end_window = 1000;
        EXPECT_TRUE(driver.start(kTask, kBaseline, config));
        return describe_tree(driver.tree());
    };
    kp::test_support::TempDirectory dir;
    auto a = flat_run(1, dir.path() / "a.db");
    auto b = flat_run(1, dir.path() / "b.db");
    EXPECT_EQ(a, b);
    bool any_differs = false;
    for (std::uint64_t seed = 2; seed < 6 && !any_differs; ++seed)
        any_differs = flat_run(seed, dir.path() / ("s" + std::to_string(seed) + ".db")) != a;
    EXPECT_TRUE(any_differs);
}
