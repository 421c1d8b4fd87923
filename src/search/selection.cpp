#include "search/selection.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "search/node_closing.h"
#include "search/widening.h"

namespace kp::search {

namespace {

// A stable pseudo-random number per (seed, node): breaks exact ties without any hidden state, so
// the same seed gives the same choices, on resume too.
std::uint64_t tie_breaker(std::uint64_t seed, std::int64_t id) {
    std::uint64_t x = seed ^ (static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

bool has_queued(const TreeNode& node, ProposalKind kind) {
    return std::any_of(node.queue.begin(), node.queue.end(),
                       [kind](const QueuedProposal& queued) { return queued.proposal.kind == kind; });
}

bool can_grow_at_all(const TreeNode& node, const SearchConfig& config) {
    return !node.dead_end() && (!node.queue.empty() || proposer_callable(node, config));
}

// A node that cannot grow any more and has no open child left closes its whole subtree.
void close_spent(SearchTree& tree, const TreeNode& node) {
    tree.close(node.id, node.dead_end() ? node.dead_end_reason : "exhausted");
}

std::optional<ExpansionChoice> widened_choice(const TreeNode& node, const SearchConfig& config) {
    if (node.dead_end()) return std::nullopt;
    ExpansionChoice choice{node.id, widening_admits(node, ProposalKind::parameter_move, config),
                           widening_admits(node, ProposalKind::rewrite, config)};
    const bool callable = proposer_callable(node, config);
    const bool parameter_ready =
        choice.parameter_moves_wanted && (has_queued(node, ProposalKind::parameter_move) || callable);
    const bool rewrite_ready = choice.rewrites_wanted && (has_queued(node, ProposalKind::rewrite) || callable);
    if (parameter_ready || rewrite_ready) return choice;
    return std::nullopt;
}

std::optional<ExpansionChoice> select_mcts(SearchTree& tree, const SearchConfig& config) {
    std::int64_t at = 0;
    while (true) {
        auto& node = tree.node(at);
        if (node.closed()) {
            if (at == 0) return std::nullopt;
            at = 0;  // a closed node was reached only if it was closed during this descent
            continue;
        }
        if (auto choice = widened_choice(node, config)) return choice;
        std::optional<std::int64_t> best;
        double best_score = 0.0;
        for (auto child_id : node.children) {
            const auto& child = tree.node(child_id);
            if (child.closed() || !child.evaluated()) continue;
            const double score = uct_score(node, child, config);
            if (!best || score > best_score + 1e-12 ||
                (std::abs(score - best_score) <= 1e-12 &&
                 tie_breaker(config.seed, child_id) > tie_breaker(config.seed, *best))) {
                best = child_id;
                best_score = score;
            }
        }
        if (best) {
            at = *best;
            continue;
        }
        // No open child to descend into: widening only arbitrates between growing here and going
        // deeper, so with nowhere deeper to go, grow here with whatever is available.
        if (can_grow_at_all(node, config)) return ExpansionChoice{node.id, true, true};
        close_spent(tree, node);
        if (at == 0) return std::nullopt;
        at = 0;
    }
}

std::optional<ExpansionChoice> select_greedy(SearchTree& tree, const SearchConfig& config) {
    std::vector<std::int64_t> order;
    for (const auto& node : tree.nodes())
        if (node.evaluated() && !node.closed()) order.push_back(node.id);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return tree.node(a).speedup_over_baseline > tree.node(b).speedup_over_baseline;
    });
    for (auto id : order) {
        if (can_grow_at_all(tree.node(id), config)) return ExpansionChoice{id, true, true};
        // Greedy refines nodes, never descends, so a node that cannot grow is done.
        close_spent(tree, tree.node(id));
    }
    return std::nullopt;
}

}  // namespace

bool proposer_callable(const TreeNode& node, const SearchConfig& config) {
    return !node.proposer_exhausted && node.proposer_calls < config.max_proposer_calls_per_node;
}

bool widening_admits(const TreeNode& node, ProposalKind kind, const SearchConfig& config) {
    return node.children_of(kind) < allowed_children(widening_rule_for(config, kind), node.visits);
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
            return ExpansionChoice{id, true, true};
    }
    return config.strategy == SearchStrategy::greedy ? select_greedy(tree, config) : select_mcts(tree, config);
}

}  // namespace kp::search
