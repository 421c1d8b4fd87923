#include "search/selection.h"

#include <algorithm>
#include <cmath>

#include "search/node_closing.h"
#include "search/selection_policy.h"
#include "search/widening.h"

namespace kp::search {

bool proposer_callable(const TreeNode& node, const SearchConfig& config) {
    return !node.proposer_exhausted() && node.proposer_calls < config.max_proposer_calls_per_node;
}

bool kind_available(const TreeNode& node, ProposalKind kind, const SearchConfig& config) {
    const bool queued = std::any_of(node.queue.begin(), node.queue.end(),
                                    [kind](const QueuedProposal& q) { return q.proposal.kind == kind; });
    return queued || (proposer_callable(node, config) && !node.exhausted(kind));
}

ExpansionChoice grow_here(const TreeNode& node, const SearchConfig& config) {
    return {node.id, kind_available(node, ProposalKind::parameter_move, config),
            kind_available(node, ProposalKind::rewrite, config)};
}

bool widening_admits(const TreeNode& node, ProposalKind kind, const SearchConfig& config) {
    return node.children_of(kind) < allowed_children(widening_rule_for(config, kind), node.visits);
}

bool can_grow_at_all(const TreeNode& node, const SearchConfig& config) {
    return !node.dead_end() && (!node.queue.empty() || proposer_callable(node, config));
}

void close_spent(SearchTree& tree, const TreeNode& node) {
    tree.close(node.id, node.dead_end() ? node.dead_end_reason : "exhausted");
}

double uct_score(const TreeNode& parent, const TreeNode& child, const SearchConfig& config) {
    const double w = config.max_backup_weight;
    const double value = (1.0 - w) * child.mean_reward() + w * child.reward_max;
    const double parent_visits = static_cast<double>(std::max<std::int64_t>(parent.visits, 1));
    const double child_visits = static_cast<double>(std::max<std::int64_t>(child.visits, 1));
    return value + config.exploration * std::sqrt(std::log(parent_visits) / child_visits);
}

std::optional<ExpansionChoice> select_for_expansion(SearchTree& tree, const SearchConfig& config) {
    if (tree.empty() || !tree.node(0).evaluated()) return std::nullopt;
    // A fresh repairable failure (a compile error, say) gets its repair attempt first: with
    // reward 0 it would otherwise wait for UCT's exploration, and the error message that makes
    // repair likely is freshest now. Newest first; one attempt each (it then has a child).
    for (auto id = tree.size() - 1; id >= 0; --id) {
        const auto& node = tree.node(id);
        if (node.children.empty() && !node.closed() && awaiting_repair(tree, id, config) && can_grow_at_all(node, config))
            return grow_here(node, config);
    }
    const SelectionPolicy* policy = selection_policies().find(config.strategy);
    // Configs are validated when a run starts or is loaded, so this is a programming error.
    if (!policy) throw std::logic_error("select_for_expansion: unvalidated strategy '" + config.strategy + "'");
    return policy->select(tree, config);
}

}  // namespace kp::search
