// What every registered selection policy must do, whatever its rule: parametrized over the
// registry (kernel_tuner's habit), so a new policy is held to it without a line of test code.
#include "driver_fixture.h"
#include "search/selection_policy.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

struct RunTrace {
    std::vector<std::string> tree;
    std::vector<std::pair<std::int64_t, std::int64_t>> choices;  // (expanded node, new child)
    double best = 0.0;
};

EvaluationOutcome rugged(const Candidate& candidate) { return rugged_outcome(candidate.source); }

RunTrace run_once(const SearchConfig& config, const std::filesystem::path& store_path) {
    auto store = open_store(store_path);
    FunctionEvaluator evaluator(rugged);
    FunctionProposer proposer(uniform_children(4), 3);
    SearchDriver driver(store, evaluator, proposer);
    RunTrace trace;
    driver.set_progress_callback([&](const SearchProgress& progress) {
        trace.choices.emplace_back(progress.parent_id.value_or(-1), progress.node_id);
    });
    auto outcome = driver.start(kTask, kBaseline, config);
    EXPECT_TRUE(outcome) << outcome.error().message;
    trace.tree = describe_tree(driver.tree());
    trace.best = outcome ? outcome->best_speedup_over_baseline : 0.0;
    return trace;
}

std::vector<std::string> without_close_marks(std::vector<std::string> lines) {
    for (auto& line : lines) line = line.substr(0, line.find(" closed="));
    return lines;
}

SearchConfig config_for(const std::string& policy, std::int64_t evaluations, std::uint64_t seed) {
    auto config = test_config(evaluations, seed);
    config.strategy = policy;
    return config;
}

}  // namespace

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, SameSeedSameProposalsSameTree) {
    kp::test_support::TempDirectory dir;
    auto config = config_for(GetParam(), 80, 7);
    auto first = run_once(config, dir.path() / "a.db");
    auto second = run_once(config, dir.path() / "b.db");
    EXPECT_EQ(first.tree, second.tree);
    EXPECT_EQ(first.choices, second.choices);
    EXPECT_EQ(first.best, second.best);
    EXPECT_EQ(first.tree.size(), 80u);
}

// A resumed run rebuilds the tree from the store and must then choose as the live run did: the
// same expansions in the same order, hence the same nodes with the same statistics. (Which spent
// nodes carry a close mark may differ: a policy closes a node when it meets one it cannot grow,
// and a resumed session has not met the ones the live session met before it stopped.)
TEST_P(EveryPolicy, StopAndResumeMakesTheSameChoices) {
    kp::test_support::TempDirectory dir;
    auto config = config_for(GetParam(), 70, 3);
    auto reference = run_once(config, dir.path() / "reference.db");

    auto store = open_store(dir.path() / "resumed.db");
    FunctionEvaluator evaluator(rugged);
    FunctionProposer proposer(uniform_children(4), 3);
    std::vector<std::pair<std::int64_t, std::int64_t>> choices;
    std::int64_t run_id = 0;
    for (int stop_after : {5, 17, 30, 52, 1000}) {
        SearchDriver driver(store, evaluator, proposer);
        driver.set_progress_callback([&](const SearchProgress& progress) {
            choices.emplace_back(progress.parent_id.value_or(-1), progress.node_id);
            if (progress.spend.evaluations >= stop_after) driver.request_stop();
        });
        auto outcome = run_id == 0 ? driver.start(kTask, kBaseline, config) : driver.resume(run_id);
        ASSERT_TRUE(outcome) << outcome.error().message;
        run_id = outcome->run_id;
        if (stop_after < 1000) {
            EXPECT_EQ(outcome->stop_reason.name(), "stop_requested");
            EXPECT_EQ(store.load_run(run_id)->status, kp::store::RunStatus::interrupted);
            continue;
        }
        EXPECT_EQ(outcome->stop_reason.name(), "evaluation_budget");
        EXPECT_EQ(without_close_marks(describe_tree(driver.tree())), without_close_marks(reference.tree));
    }
    EXPECT_EQ(choices, reference.choices);
    EXPECT_EQ(evaluator.calls, 70);  // nothing evaluated twice
    EXPECT_EQ(store.load_run(run_id)->status, kp::store::RunStatus::finished);
}

// Asked at every step of a run, the policy names an evaluated, open node that can still grow, or
// nothing only once the root is closed; and the search ends as exhausted, never stuck.
TEST_P(EveryPolicy, ChoosesOnlyNodesThatCanGrowAndEndsByExhaustion) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(rugged);
    // A small finite tree: two children per node, three levels below the baseline.
    FunctionProposer proposer(
        [](const NodeView& node) {
            std::vector<Proposal> children;
            if (node.depth < 3)
                for (int i = 0; i < 2; ++i)
                    children.push_back(make_proposal(i ? ProposalKind::rewrite : ProposalKind::parameter_move,
                                                     node.candidate.source + ".s" + std::to_string(i)));
            return children;
        },
        2);
    const SelectionPolicy* policy = selection_policies().find(GetParam());
    ASSERT_NE(policy, nullptr);
    SearchDriver driver(store, evaluator, proposer);
    auto config = config_for(GetParam(), 1000, 5);
    int asked = 0;
    driver.set_progress_callback([&](const SearchProgress&) {
        SearchTree copy = driver.tree();
        auto choice = policy->select(copy, config);
        ++asked;
        if (!choice) {
            EXPECT_TRUE(copy.node(0).closed()) << "nothing to grow, yet the root is open";
            return;
        }
        const auto& node = copy.node(choice->node_id);
        EXPECT_TRUE(node.evaluated()) << "node " << node.id;
        EXPECT_FALSE(node.closed()) << "node " << node.id;
        EXPECT_TRUE(can_grow_at_all(node, config)) << "node " << node.id;
    });
    auto outcome = driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->stop_reason.name(), "search_exhausted");
    EXPECT_TRUE(driver.tree().node(0).closed());
    EXPECT_LE(outcome->nodes, 15);  // 1 + 2 + 4 + 8: each experiment at most once
    EXPECT_EQ(asked, outcome->nodes);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryPolicy, ::testing::ValuesIn(selection_policies().names()),
                         [](const auto& info) { return info.param; });

TEST(SelectionPolicies, UnknownStrategyIsOneErrorNamingTheRegisteredOnes) {
    auto json = config_to_json(SearchConfig{});
    json["strategy"] = "annealing";
    auto config = config_from_json(json);
    ASSERT_FALSE(config);
    EXPECT_EQ(config.error().message,
              "search config: unknown selection policy 'annealing' (registered: " + selection_policies().joined_names() + ")");
    EXPECT_NE(selection_policies().find("mcts"), nullptr);
    EXPECT_NE(selection_policies().find("greedy"), nullptr);
}
