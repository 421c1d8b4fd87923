// greedy: always refine the correct node with the best gain (the speedup under the time objective)
// that can still grow (the ablation: same proposals, pruning, memory and budgets as mcts, only the
// selection rule differs).
#include <algorithm>
#include <vector>

#include "search/selection_policy.h"

namespace kp::search {

namespace {

std::optional<ExpansionChoice> select_greedy(SearchTree& tree, const SearchConfig& config) {
    std::vector<std::int64_t> order;
    for (const auto& node : tree.nodes())
        if (node.evaluated() && !node.closed()) order.push_back(node.id);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return tree.node(a).gain > tree.node(b).gain;
    });
    for (auto id : order) {
        if (can_grow_at_all(tree.node(id), config)) return grow_here(tree.node(id), config);
        // Greedy refines nodes, never descends, so a node that cannot grow is done.
        close_spent(tree, tree.node(id));
    }
    return std::nullopt;
}

SelectionPolicy greedy_policy() {
    return {"greedy", "always refine the best correct kernel so far (ablation)", select_greedy};
}

}  // namespace

KP_REGISTER_SELECTION_POLICY(greedy_policy())

}  // namespace kp::search
