// Dead-end pruning and the correctness wall, observed on whole searches.
#include "driver_fixture.h"
#include "search/node_closing.h"
#include "search/proposers/parameter_space.h"
#include "search/proposers/random_proposers.h"

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

// A node that stops (a dead end, or closed) gets no more children: the proposals still queued under
// it are forgotten, so another node may propose those points again (before, they stayed "known"
// and an exhaustive run never evaluated them). One another queue also holds stays known.
TEST(Pruning, AStoppedNodesQueuedPointsCanBeProposedAgain) {
    SearchTree tree;
    tree.add_root({"root", {}}, "k0");
    tree.apply_evaluation(0, correct_outcome(1.0), 0.3, 1.0);
    tree.add_child(0, ProposalKind::parameter_move, {"a", {}}, "", "ka");
    tree.add_child(0, ProposalKind::parameter_move, {"b", {}}, "", "kb");
    auto queue = [&](std::int64_t node, const std::string& key) {
        tree.node(node).queue.push_back({0, Proposal{ProposalKind::parameter_move, {key, {}}, ""}, key});
        tree.remember_key(key);
    };
    queue(1, "q-only-under-a");
    queue(1, "q-shared");
    queue(2, "q-shared");
    queue(1, "kb");  // the same experiment as node b
    tree.mark_dead_end(1, "dead end: test");
    EXPECT_TRUE(tree.node(1).queue.empty());
    EXPECT_FALSE(tree.knows_key("q-only-under-a"));
    EXPECT_TRUE(tree.knows_key("q-shared"));  // node b still has it queued
    EXPECT_TRUE(tree.knows_key("kb"));        // node b is that experiment
    EXPECT_TRUE(tree.knows_key("ka"));        // the stopped node itself stays known
    tree.close(2, "failed: test");
    EXPECT_FALSE(tree.knows_key("q-shared"));
    EXPECT_TRUE(tree.knows_key("kb"));
}

// The same on a whole search: the exhaustive proposer over 24 points, where one early point is far
// better and everything after it regresses, so the nodes it proposed from close as dead ends with
// points still queued. Every point is still evaluated within a budget of 24.
TEST(Pruning, AnExhaustiveRunCoversItsSpaceThoughNodesCloseWithPointsQueued) {
    const std::string source = "// kp:tune A=1,2,3,4,5,6\n// kp:tune B=1,2,3,4\n#define A 1\n#define B 1\n";
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    std::set<std::string> points;
    FunctionEvaluator evaluator([&](const Candidate& c) {
        auto space = kp::parse_tunables(c.source);
        const auto point = resolve_point(c.source, *space, c.params);
        points.insert(point_text(point));
        return correct_outcome(point_text(point) == "A=2,B=1" ? 3.0 : (point_text(point) == "A=1,B=1" ? 1.0 : 0.9));
    });
    ExhaustiveProposer proposer;
    SearchDriver driver(store, evaluator, proposer);
    auto outcome = driver.start(kTask, Candidate{source, {}}, test_config(24));
    ASSERT_TRUE(outcome) << outcome.error().message;
    int dead_ends = 0;
    for (const auto& node : driver.tree().nodes()) dead_ends += node.dead_end();
    EXPECT_GT(dead_ends, 0) << "the landscape should close nodes early";
    EXPECT_EQ(points.size(), 24u) << "evaluated " << points.size() << " of the 24 points";
    EXPECT_EQ(evaluator.calls, 24);
}
