// Same seed and same proposals give the same tree and the same choices; and stopping a run and
// resuming it gives the same tree as never stopping.
#include "driver_fixture.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

struct RunTrace {
    std::vector<std::string> tree;
    std::vector<std::pair<std::int64_t, std::int64_t>> choices;  // (expanded node, new child)
    double best = 0.0;
};

RunTrace run_once(const SearchConfig& config, const std::filesystem::path& store_path) {
    auto store = open_store(store_path);
    FunctionEvaluator evaluator([](const Candidate& candidate) { return rugged_outcome(candidate.source); });
    FunctionProposer proposer(uniform_children(4), 3);
    SearchDriver driver(store, evaluator, proposer);
    RunTrace trace;
    driver.set_progress_callback([&](const SearchProgress& progress) {
        trace.choices.emplace_back(progress.parent_id.value_or(-1), progress.node_id);
    });
    auto outcome = driver.start(kTask, kBaseline, config);
    EXPECT_TRUE(outcome);
    trace.tree = describe_tree(driver.tree());
    trace.best = outcome ? outcome->best_speedup_over_baseline : 0.0;
    return trace;
}

}  // namespace

class Determinism : public ::testing::TestWithParam<SearchStrategy> {};

TEST_P(Determinism, SameSeedSameProposalsSameTree) {
    kp::test_support::TempDirectory dir;
    auto config = test_config(80, 7);
    config.strategy = GetParam();
    auto first = run_once(config, dir.path() / "a.db");
    auto second = run_once(config, dir.path() / "b.db");
    EXPECT_EQ(first.tree, second.tree);
    EXPECT_EQ(first.choices, second.choices);
    EXPECT_EQ(first.best, second.best);
    EXPECT_EQ(first.tree.size(), 80u);
}

INSTANTIATE_TEST_SUITE_P(BothStrategies, Determinism,
                         ::testing::Values(SearchStrategy::mcts, SearchStrategy::greedy),
                         [](const auto& info) { return std::string(search_strategy_name(info.param)); });

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

TEST(Determinism, StopAndResumeEqualsUninterrupted) {
    kp::test_support::TempDirectory dir;
    auto config = test_config(70, 3);
    auto reference = run_once(config, dir.path() / "reference.db");

    auto store = open_store(dir.path() / "resumed.db");
    FunctionEvaluator evaluator([](const Candidate& candidate) { return rugged_outcome(candidate.source); });
    FunctionProposer proposer(uniform_children(4), 3);
    std::int64_t run_id = 0;
    for (int stop_after : {5, 17, 30, 52}) {
        SearchDriver driver(store, evaluator, proposer);
        driver.set_progress_callback([&](const SearchProgress& progress) {
            if (progress.spend.evaluations >= stop_after) driver.request_stop();
        });
        auto outcome = run_id == 0 ? driver.start(kTask, kBaseline, config) : driver.resume(run_id);
        ASSERT_TRUE(outcome) << outcome.error().message;
        EXPECT_EQ(outcome->stop_reason, StopReason::stop_requested);
        EXPECT_EQ(store.load_run(outcome->run_id)->status, kp::store::RunStatus::interrupted);
        run_id = outcome->run_id;
    }
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.resume(run_id);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->stop_reason, StopReason::evaluation_budget);
    EXPECT_EQ(describe_tree(driver.tree()), reference.tree);
    EXPECT_EQ(evaluator.calls, 70);  // nothing evaluated twice
    EXPECT_EQ(store.load_run(run_id)->status, kp::store::RunStatus::finished);
}
