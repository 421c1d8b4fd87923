#include "search/node_closing.h"

namespace kp::search {

bool failed_or_regressed(const SearchTree& tree, std::int64_t child, const SearchConfig& config) {
    const auto& node = tree.node(child);
    if (!node.correct()) return true;
    const auto& parent = tree.node(*node.parent);
    if (!parent.correct()) return false;  // a repaired failure is progress
    return node.gain < parent.gain * (1.0 + config.min_improvement);
}

std::optional<std::string> dead_end_reason(const SearchTree& tree, std::int64_t id, const SearchConfig& config) {
    const auto& node = tree.node(id);
    if (!node.parent) return std::nullopt;
    int examined = 0;
    for (auto it = node.children.rbegin(); it != node.children.rend() && examined < config.dead_end_window; ++it) {
        if (!tree.node(*it).evaluated()) continue;
        if (!failed_or_regressed(tree, *it, config)) return std::nullopt;
        ++examined;
    }
    if (examined < config.dead_end_window) return std::nullopt;
    return "dead end: last " + std::to_string(config.dead_end_window) + " children failed or regressed";
}

int failure_chain_length(const SearchTree& tree, std::int64_t id) {
    int length = 0;
    for (std::optional<std::int64_t> at = id; at && tree.node(*at).evaluated() && !tree.node(*at).correct();
         at = tree.node(*at).parent)
        ++length;
    return length;
}

bool awaiting_repair(const SearchTree& tree, std::int64_t id, const SearchConfig& config) {
    const auto& node = tree.node(id);
    return node.evaluated() && !node.correct() && config.repairable.count(node.outcome->status) > 0 &&
           failure_chain_length(tree, id) <= config.max_repair_chain;
}

void close_after_evaluation(SearchTree& tree, std::int64_t id, const SearchConfig& config) {
    const auto& node = tree.node(id);
    if (!node.correct() && !awaiting_repair(tree, id, config))
        tree.close(id, std::string("failed: ") + status_class_name(node.outcome->status));
    if (node.parent)
        if (auto reason = dead_end_reason(tree, *node.parent, config)) tree.mark_dead_end(*node.parent, *reason);
}

}  // namespace kp::search
