// Progressive widening with asymmetric branching, observed on whole searches.
#include "driver_fixture.h"
#include "search/widening.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

// Every change is a small improvement, so nothing is pruned and widening alone shapes the tree.
EvaluationOutcome improving(const Candidate& candidate) {
    const auto depth = std::count(candidate.source.begin(), candidate.source.end(), '.');
    return correct_outcome(1.0 + 0.05 * static_cast<double>(depth) + 0.01 * unit_hash(candidate.source));
}

}  // namespace

TEST(Widening, ChildrenNeverExceedCeilKNAlphaAtExpansionTime) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(improving);
    FunctionProposer proposer(uniform_children(60), 8);
    auto config = test_config(200);
    config.dead_end_window = 1000;  // isolate widening from pruning
    config.max_proposer_calls_per_node = 1000;  // and from running out of proposals
    SearchDriver driver(store, evaluator, proposer);
    int checked = 0;
    driver.set_progress_callback([&](const SearchProgress& progress) {
        if (!progress.parent_id) return;
        const auto& parent = driver.tree().node(*progress.parent_id);
        const auto& child = driver.tree().node(progress.node_id);
        const auto kind = child.origin == NodeOrigin::rewrite ? ProposalKind::rewrite : ProposalKind::parameter_move;
        // The parent's visits before this child's reward was backed up.
        const auto visits_at_expansion = parent.visits - 1;
        EXPECT_LE(parent.children_of(kind), allowed_children(widening_rule_for(config, kind), visits_at_expansion))
            << "node " << parent.id << " kind " << proposal_kind_name(kind);
        ++checked;
    });
    auto outcome = driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->stop_reason.name(), "evaluation_budget");
    EXPECT_EQ(checked, 199);

    // The root is examined first on every descent, so it widens exactly as fast as allowed
    // (lagging by at most one when both kinds open up at the same visit).
    const auto& root = driver.tree().node(0);
    const int parameter_allowed = allowed_children(config.parameter_widening, root.visits);
    const int rewrite_allowed = allowed_children(config.rewrite_widening, root.visits);
    EXPECT_GE(root.parameter_children, parameter_allowed - 1);
    EXPECT_LE(root.parameter_children, parameter_allowed);
    EXPECT_GE(root.rewrite_children, rewrite_allowed - 1);
    EXPECT_LE(root.rewrite_children, rewrite_allowed);
    // Asymmetric branching: cheap parameter moves outnumber expensive rewrites.
    EXPECT_GT(root.parameter_children, root.rewrite_children);
    // And the search went deeper than the root's children (on this symmetric landscape UCT spreads
    // visits evenly, so the tree is bushy by design).
    int max_depth = 0;
    for (const auto& node : driver.tree().nodes()) max_depth = std::max(max_depth, node.depth);
    EXPECT_GE(max_depth, 3);
}

TEST(Widening, ChildrenGrowOnlyAsVisitsGrow) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(improving);
    FunctionProposer proposer(uniform_children(60), 8);
    auto config = test_config(60);
    config.dead_end_window = 1000;
    config.max_proposer_calls_per_node = 1000;
    config.parameter_widening = {1.0, 0.5};
    config.rewrite_widening = {1.0, 0.2};
    SearchDriver driver(store, evaluator, proposer);
    std::vector<std::pair<std::int64_t, int>> root_history;  // (root visits, root children) per step
    driver.set_progress_callback([&](const SearchProgress&) {
        const auto& root = driver.tree().node(0);
        root_history.emplace_back(root.visits, static_cast<int>(root.children.size()));
    });
    ASSERT_TRUE(driver.start(kTask, kBaseline, config));
    ASSERT_EQ(root_history.size(), 60u);  // the baseline's evaluation, then 59 children
    for (const auto& [visits, children] : root_history) {
        // Visits at the last selection; the children allowed then, over both kinds.
        const auto before = visits - 1;
        const int allowed = allowed_children(config.parameter_widening, before) +
                            allowed_children(config.rewrite_widening, before);
        EXPECT_LE(children, allowed) << "at " << before << " visits";
        EXPECT_GE(children, allowed - 2) << "at " << before << " visits";
    }
    EXPECT_GT(root_history.back().second, root_history.front().second + 4);
}

namespace {

// Proposes rewrites only, and only when rewrites are wanted (as the LLM proposer does): asked for
// parameter moves alone it has nothing.
class RewritesOnly : public Proposer {
public:
    kp::Result<ProposalBatch> propose(const ProposalRequest& request) override {
        ProposalBatch batch;
        if (!request.rewrites_wanted) return batch;
        const std::string name = request.node.candidate.source + ".r" + std::to_string(request.call_index);
        batch.proposals.push_back(make_proposal(ProposalKind::rewrite, name));
        return batch;
    }
};

std::vector<std::string> rewrites_only_tree(kp::store::RunStore& store, std::optional<std::int64_t> resume_id,
                                            std::int64_t stop_after = 0) {
    FunctionEvaluator evaluator(improving);
    RewritesOnly proposer;
    SearchDriver driver(store, evaluator, proposer);
    if (stop_after > 0)
        driver.set_progress_callback([&](const SearchProgress& p) {
            if (p.spend.evaluations >= stop_after) driver.request_stop();
        });
    auto config = test_config(30);
    config.dead_end_window = 1000;
    auto outcome = resume_id ? driver.resume(*resume_id) : driver.start(kTask, kBaseline, config);
    EXPECT_TRUE(outcome) << outcome.error().message;
    return describe_tree(driver.tree());
}

}  // namespace

// An empty answer to a request for parameter moves closes parameter moves at that node, not the
// node: a proposer of rewrites alone still widens the root as rewrite widening allows. (Before,
// the root's second visit asked for moves only, got nothing and closed the root for good.)
TEST(Widening, AProposerOfOneKindIsNotClosedByRequestsForTheOther) {
    kp::test_support::TempDirectory dir;
    auto store = open_store(dir.path() / "runs.db");
    FunctionEvaluator evaluator(improving);
    RewritesOnly proposer;
    SearchDriver driver(store, evaluator, proposer);
    auto config = test_config(30);
    config.dead_end_window = 1000;
    auto outcome = driver.start(kTask, kBaseline, config);
    ASSERT_TRUE(outcome) << outcome.error().message;
    EXPECT_EQ(outcome->stop_reason.name(), "evaluation_budget");
    const auto& root = driver.tree().node(0);
    EXPECT_GE(root.rewrite_children, allowed_children(config.rewrite_widening, root.visits) - 1);
    EXPECT_GE(root.rewrite_children, 2);
    EXPECT_TRUE(root.parameter_moves_exhausted);
    EXPECT_FALSE(root.rewrites_exhausted);

    // The per-kind marks survive the store: stopped and resumed, the run is the same.
    auto resumed_store = open_store(dir.path() / "resumed.db");
    rewrites_only_tree(resumed_store, std::nullopt, 9);
    EXPECT_EQ(rewrites_only_tree(resumed_store, 1), describe_tree(driver.tree()));
}
