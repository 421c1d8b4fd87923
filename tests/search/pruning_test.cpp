// Dead-end pruning and the correctness wall, observed on whole searches.
#include "driver_fixture.h"
#include "search/node_closing.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

// root.p0 is by far the best first step, but everything below it is wrong: MCTS is drawn to it,
// and pruning must close it after `dead_end_window` failed children.
EvaluationOutcome trap_below_best(const Candidate& candidate) {
    const auto& source = candidate.source;
    if (source == "root") return correct_outcome(1.0);
    if (source == "root.p0") return correct_outcome(3.0);
    if (source.rfind("root.p0.", 0) == 0) return failed_outcome(StatusClass::incorrect);
    return correct_outcome(1.05 + 0.01 * unit_hash(source));
}

}  // namespace

TEST(Pruning, ClosesASubtreeWhoseLastChildrenAllFailed) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(trap_below_best);
    FunctionProposer proposer(uniform_children(10), 4);
    auto config = test_config(60);
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome) << outcome.error().message;

    const auto& tree = driver.tree();
    std::optional<std::int64_t> trap;
    for (const auto& node : tree.nodes())
        if (node.candidate.source == "root.p0") trap = node.id;
    ASSERT_TRUE(trap);
    const auto& trapped = tree.node(*trap);
    EXPECT_NE(trapped.dead_end_reason.find("dead end"), std::string::npos) << trapped.dead_end_reason;
    EXPECT_EQ(trapped.children.size(), static_cast<size_t>(config.dead_end_window));  // nothing after closing
    for (auto child : trapped.children) {
        EXPECT_EQ(tree.node(child).close_reason, "failed: incorrect");  // wrong kernels are leaves
        EXPECT_EQ(tree.node(child).reward, 0.0);
        EXPECT_TRUE(tree.node(child).children.empty());
    }
    // The best kernel is still the closed node: closing stops refinement, it does not forget.
    EXPECT_EQ(outcome->best_node_id, *trap);
    EXPECT_NEAR(outcome->best_speedup_over_baseline, 3.0, 1e-9);
    // The reason is in the store, for reports.
    auto nodes = store.load_nodes(outcome->run_id);
    ASSERT_TRUE(nodes);
    EXPECT_NE((*nodes)[static_cast<size_t>(*trap)].close_reason.find("dead end"), std::string::npos);
}

TEST(Pruning, RegressionsCloseToo) {
    SearchConfig config = test_config(10);
    SearchTree tree;
    tree.add_root({"root", {}}, "k0");
    tree.apply_evaluation(0, correct_outcome(1.0), 0.3, 1.0);
    tree.add_child(0, ProposalKind::rewrite, {"a", {}}, "", "k1");
    tree.apply_evaluation(1, correct_outcome(2.0), 0.5, 2.0);
    const double speedups[] = {2.01, 1.5, 0.9};  // +0.5% is below min_improvement: a regression
    for (int i = 0; i < 3; ++i) {
        auto id = tree.add_child(1, ProposalKind::parameter_move, {"a" + std::to_string(i), {}}, "", "c" + std::to_string(i));
        tree.apply_evaluation(id, correct_outcome(speedups[i]), 0.5, speedups[i]);
        close_after_evaluation(tree, id, config);
        EXPECT_EQ(tree.node(1).dead_end(), i == 2) << i;
    }
}

TEST(Pruning, OneImprovementInTheWindowKeepsANodeOpen) {
    SearchConfig config = test_config(10);
    SearchTree tree;
    tree.add_root({"root", {}}, "k0");
    tree.apply_evaluation(0, correct_outcome(1.0), 0.3, 1.0);
    tree.add_child(0, ProposalKind::rewrite, {"a", {}}, "", "k1");
    tree.apply_evaluation(1, correct_outcome(2.0), 0.5, 2.0);
    const double speedups[] = {1.0, 2.5, 1.0, 1.0};
    for (int i = 0; i < 4; ++i) {
        auto id = tree.add_child(1, ProposalKind::parameter_move, {"a" + std::to_string(i), {}}, "", "c" + std::to_string(i));
        tree.apply_evaluation(id, correct_outcome(speedups[i]), 0.3, speedups[i]);
        close_after_evaluation(tree, id, config);
    }
    EXPECT_FALSE(tree.node(1).dead_end());  // the window (last 3) still holds the 2.5x child
}

TEST(Pruning, TheBaselineIsNeverADeadEnd) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator([](const Candidate& candidate) {
        return candidate.source == "root" ? correct_outcome(1.0) : failed_outcome(StatusClass::crash);
    });
    FunctionProposer proposer(uniform_children(5), 3);
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.start(kTask, kBaseline, test_config(100));
    ASSERT_TRUE(outcome);
    // Every child crashed, yet the baseline kept widening until its proposals ran out.
    EXPECT_EQ(outcome->stop_reason.name(), "search_exhausted");
    EXPECT_EQ(driver.tree().node(0).children.size(), 10u);
    EXPECT_EQ(driver.tree().node(0).close_reason, "exhausted");
    EXPECT_EQ(outcome->best_node_id, 0);
}

TEST(Pruning, RepairableFailuresMayBeRefined) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    // The first rewrite does not compile; its "fix" does, and is fast.
    FunctionEvaluator evaluator([](const Candidate& candidate) {
        if (candidate.source == "root.r0") return failed_outcome(StatusClass::compile_error);
        if (candidate.source.rfind("root.r0.", 0) == 0) return correct_outcome(2.0);
        return correct_outcome(candidate.source == "root" ? 1.0 : 0.9);
    });
    FunctionProposer proposer(uniform_children(2), 4);
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.start(kTask, kBaseline, test_config(30));
    ASSERT_TRUE(outcome);
    ASSERT_TRUE(outcome->best_candidate);
    EXPECT_EQ(outcome->best_candidate->source.rfind("root.r0.", 0), 0u) << outcome->best_candidate->source;
    // The repair was attempted right after the failure, not when exploration got round to it.
    const auto& failed = driver.tree().node(2);
    ASSERT_EQ(failed.candidate.source, "root.r0");
    ASSERT_FALSE(failed.children.empty());
    EXPECT_EQ(failed.children.front(), 3);
}

TEST(Pruning, RepairChainsAreBounded) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    // Every rewrite fails to compile, and so does every attempt to fix one.
    FunctionEvaluator evaluator([](const Candidate& candidate) {
        if (candidate.source.find(".r") != std::string::npos) return failed_outcome(StatusClass::compile_error);
        return correct_outcome(candidate.source == "root" ? 1.0 : 1.1);
    });
    FunctionProposer proposer(uniform_children(2), 4);
    SearchDriver driver(store, evaluator, proposer);
    auto config = test_config(40);
    ASSERT_TRUE(driver.start(kTask, kBaseline, config));
    for (const auto& node : driver.tree().nodes()) {
        EXPECT_LE(failure_chain_length(driver.tree(), node.id), config.max_repair_chain + 1) << node.candidate.source;
        if (failure_chain_length(driver.tree(), node.id) > config.max_repair_chain) {
            EXPECT_TRUE(node.closed());
            EXPECT_TRUE(node.children.empty());
        }
    }
}
