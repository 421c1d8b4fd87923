// mcts: UCT descent with progressive widening (docs/search.md). From the root, at each node: grow
// here if widening admits a child of some kind and one is available, else descend to the open
// child with the best UCT score; exact ties are broken by a hash of (seed, node id).
#include <algorithm>
#include <cmath>

#include "search/selection_policy.h"

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

// The kinds widening admits here and that can come from here; nothing when there is none.
std::optional<ExpansionChoice> widened_choice(const TreeNode& node, const SearchConfig& config) {
    if (node.dead_end()) return std::nullopt;
    auto wanted = [&](ProposalKind kind) {
        return widening_admits(node, kind, config) && kind_available(node, kind, config);
    };
    ExpansionChoice choice{node.id, wanted(ProposalKind::parameter_move), wanted(ProposalKind::rewrite)};
    if (choice.parameter_moves_wanted || choice.rewrites_wanted) return choice;
    return std::nullopt;
}

// The open, evaluated child with the best UCT score.
std::optional<std::int64_t> best_child(const SearchTree& tree, const TreeNode& node, const SearchConfig& config) {
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
    return best;
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
        if (auto child = best_child(tree, node, config)) {
            at = *child;
            continue;
        }
        // No open child to descend into: widening only arbitrates between growing here and going
        // deeper, so with nowhere deeper to go, grow here with whatever is available.
        if (can_grow_at_all(node, config)) return grow_here(node, config);
        close_spent(tree, node);
        if (at == 0) return std::nullopt;
        at = 0;
    }
}

SelectionPolicy mcts_policy() {
    return {"mcts", "UCT descent with progressive widening (the default)", select_mcts};
}

}  // namespace

KP_REGISTER_SELECTION_POLICY(mcts_policy())

}  // namespace kp::search
