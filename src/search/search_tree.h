// The search tree over kernel versions: nodes are candidates, edges are proposals. Holds the
// statistics UCT needs (visits, mean and max reward), each node's queue of untried proposals and
// why a node is closed. Pure data and arithmetic: no I/O, so tests drive it directly and resume
// rebuilds it by replaying the store.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/candidate.h"
#include "search/evaluation_outcome.h"
#include "search/objective.h"
#include "search/proposal.h"

namespace kp::search {

enum class NodeOrigin { baseline, parameter_move, rewrite };
const char* node_origin_name(NodeOrigin origin);
NodeOrigin origin_of(ProposalKind kind);

struct QueuedProposal {
    std::int64_t store_id = 0;  // proposals.id in the run store
    Proposal proposal;
    std::string evaluation_key;
};

struct TreeNode {
    std::int64_t id = 0;
    std::optional<std::int64_t> parent;
    NodeOrigin origin = NodeOrigin::baseline;
    Candidate candidate;
    std::string rationale;
    std::string evaluation_key;
    int depth = 0;

    // Set once the evaluation is known.
    std::optional<EvaluationOutcome> outcome;
    double reward = 0.0;
    double speedup_over_baseline = 0.0;
    double gain = 0.0;  // over the baseline under the run's objective (objective.h); the speedup for time

    // Backed-up statistics over the subtree (the node's own evaluation included).
    std::int64_t visits = 0;
    double reward_sum = 0.0;
    double reward_max = 0.0;

    std::vector<std::int64_t> children;  // creation order
    int parameter_children = 0;
    int rewrite_children = 0;

    std::deque<QueuedProposal> queue;  // untried proposals, in the order the proposer gave them
    int proposer_calls = 0;
    // The proposer answered nothing when asked for this kind here: it is not asked for it again.
    bool parameter_moves_exhausted = false;
    bool rewrites_exhausted = false;

    // A dead end gets no more children of its own, but its open children are still explored;
    // once none is left, the whole subtree closes with this reason.
    std::string dead_end_reason;
    std::string close_reason;  // non-empty: the subtree is closed to selection

    bool evaluated() const { return outcome.has_value(); }
    bool dead_end() const { return !dead_end_reason.empty(); }
    bool closed() const { return !close_reason.empty(); }
    bool correct() const { return outcome && outcome->correct(); }
    bool exhausted(ProposalKind kind) const {
        return kind == ProposalKind::rewrite ? rewrites_exhausted : parameter_moves_exhausted;
    }
    bool proposer_exhausted() const { return parameter_moves_exhausted && rewrites_exhausted; }
    int children_of(ProposalKind kind) const {
        return kind == ProposalKind::rewrite ? rewrite_children : parameter_children;
    }
    double mean_reward() const { return visits > 0 ? reward_sum / static_cast<double>(visits) : 0.0; }
};

class SearchTree {
public:
    // Node ids are dense and follow creation order: 0 is the baseline.
    std::int64_t add_root(const Candidate& baseline, const std::string& evaluation_key);
    std::int64_t add_child(std::int64_t parent, ProposalKind kind, const Candidate& candidate,
                           const std::string& rationale, const std::string& evaluation_key);

    // Records a node's evaluation and backs its reward up to the root. `gain` is the objective's
    // (objective.h); the speedup when not given (the time objective).
    void apply_evaluation(std::int64_t id, const EvaluationOutcome& outcome, double reward,
                          double speedup_over_baseline, std::optional<double> gain = std::nullopt);

    void close(std::int64_t id, const std::string& reason);
    void mark_dead_end(std::int64_t id, const std::string& reason);
    // Ids closed or marked dead ends since the last call (so the driver can persist reasons); clears the list.
    std::vector<std::int64_t> take_newly_closed();

    // Keys of every node and queued proposal: a proposal with a known key is a duplicate.
    bool knows_key(const std::string& evaluation_key) const { return keys_.count(evaluation_key) > 0; }
    void remember_key(const std::string& evaluation_key) { keys_.insert(evaluation_key); }

    TreeNode& node(std::int64_t id) { return nodes_.at(static_cast<size_t>(id)); }
    const TreeNode& node(std::int64_t id) const { return nodes_.at(static_cast<size_t>(id)); }
    const std::vector<TreeNode>& nodes() const { return nodes_; }
    std::int64_t size() const { return static_cast<std::int64_t>(nodes_.size()); }
    bool empty() const { return nodes_.empty(); }
    std::int64_t evaluated_count() const { return evaluated_; }

    // The best correct node under the objective (objective.h's best_kernel).
    std::optional<std::int64_t> best_node(const ObjectiveRule& rule = {}) const;
    // The highest roofline fraction reached by a correct node.
    std::optional<double> best_roofline_fraction() const;
    // Ancestors of a node, root first (the node itself excluded).
    std::vector<std::int64_t> lineage(std::int64_t id) const;

private:
    void release_queue(TreeNode& stopped);  // a closed or dead-end node's untried proposals become proposable again
    std::vector<TreeNode> nodes_;
    std::set<std::string> keys_;
    std::vector<std::int64_t> newly_closed_;
    std::int64_t evaluated_ = 0;
};

}  // namespace kp::search
