#include "search/search_tree.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace kp::search {

const char* node_origin_name(NodeOrigin origin) {
    switch (origin) {
        case NodeOrigin::baseline: return "baseline";
        case NodeOrigin::parameter_move: return "parameter_move";
        case NodeOrigin::rewrite: return "rewrite";
    }
    return "baseline";
}

NodeOrigin origin_of(ProposalKind kind) {
    return kind == ProposalKind::rewrite ? NodeOrigin::rewrite : NodeOrigin::parameter_move;
}

std::int64_t SearchTree::add_root(const Candidate& baseline, const std::string& evaluation_key) {
    if (!nodes_.empty()) throw std::logic_error("SearchTree::add_root on a non-empty tree");
    TreeNode root;
    root.id = 0;
    root.candidate = baseline;
    root.evaluation_key = evaluation_key;
    nodes_.push_back(std::move(root));
    keys_.insert(evaluation_key);
    return 0;
}

std::int64_t SearchTree::add_child(std::int64_t parent, ProposalKind kind, const Candidate& candidate,
                                   const std::string& rationale, const std::string& evaluation_key) {
    TreeNode child;
    child.id = size();
    child.parent = parent;
    child.origin = origin_of(kind);
    child.candidate = candidate;
    child.rationale = rationale;
    child.evaluation_key = evaluation_key;
    child.depth = node(parent).depth + 1;
    auto& parent_node = node(parent);
    parent_node.children.push_back(child.id);
    (kind == ProposalKind::rewrite ? parent_node.rewrite_children : parent_node.parameter_children) += 1;
    keys_.insert(evaluation_key);
    nodes_.push_back(std::move(child));
    return nodes_.back().id;
}

void SearchTree::apply_evaluation(std::int64_t id, const EvaluationOutcome& outcome, double reward,
                                  double speedup_over_baseline, std::optional<double> gain) {
    auto& evaluated = node(id);
    if (evaluated.evaluated()) throw std::logic_error("SearchTree: node evaluated twice");
    evaluated.outcome = outcome;
    evaluated.reward = reward;
    evaluated.speedup_over_baseline = speedup_over_baseline;
    evaluated.gain = gain.value_or(speedup_over_baseline);
    ++evaluated_;
    for (std::optional<std::int64_t> at = id; at; at = node(*at).parent) {
        auto& on_path = node(*at);
        on_path.visits += 1;
        on_path.reward_sum += reward;
        on_path.reward_max = std::max(on_path.reward_max, reward);
    }
}

void SearchTree::release_queue(TreeNode& stopped) {
    // The node gets no more children: the points still queued under it are forgotten, so another
    // node may propose them again (they would otherwise stay "known" and never be evaluated).
    auto queue = std::exchange(stopped.queue, {});
    for (const auto& queued : queue) {
        // Unless a node or another queue holds the same experiment (a resumed run re-queues them all).
        const auto& key = queued.evaluation_key;
        const bool in_use = std::any_of(nodes_.begin(), nodes_.end(), [&](const TreeNode& n) {
            return n.evaluation_key == key ||
                   std::any_of(n.queue.begin(), n.queue.end(), [&](const QueuedProposal& q) { return q.evaluation_key == key; });
        });
        if (!in_use) keys_.erase(key);
    }
}

void SearchTree::close(std::int64_t id, const std::string& reason) {
    auto& closing = node(id);
    if (closing.closed()) return;
    closing.close_reason = reason;
    release_queue(closing);
    newly_closed_.push_back(id);
}

void SearchTree::mark_dead_end(std::int64_t id, const std::string& reason) {
    auto& marked = node(id);
    if (marked.dead_end()) return;
    marked.dead_end_reason = reason;
    release_queue(marked);
    newly_closed_.push_back(id);
}

std::vector<std::int64_t> SearchTree::take_newly_closed() { return std::exchange(newly_closed_, {}); }

std::optional<std::int64_t> SearchTree::best_node(const ObjectiveRule& rule) const {
    std::vector<std::int64_t> ids;
    std::vector<RankedKernel> kernels;
    for (const auto& candidate : nodes_) {
        if (!candidate.correct()) continue;
        ids.push_back(candidate.id);
        kernels.push_back({candidate.speedup_over_baseline, candidate.gain, candidate.outcome->joules_per_call.has_value()});
    }
    auto best = best_kernel(rule, kernels);
    return best ? std::optional<std::int64_t>(ids[*best]) : std::nullopt;
}

std::optional<double> SearchTree::best_roofline_fraction() const {
    std::optional<double> best;
    for (const auto& candidate : nodes_)
        if (candidate.correct() && candidate.outcome->roofline_fraction)
            best = std::max(best.value_or(0.0), *candidate.outcome->roofline_fraction);
    return best;
}

std::vector<std::int64_t> SearchTree::lineage(std::int64_t id) const {
    std::vector<std::int64_t> ancestors;
    for (auto at = node(id).parent; at; at = node(*at).parent) ancestors.push_back(*at);
    std::reverse(ancestors.begin(), ancestors.end());
    return ancestors;
}

}  // namespace kp::search
