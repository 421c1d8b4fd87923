// Where to grow the tree next: UCT descent with progressive widening (MCTS), or the best node so
// far (greedy refinement, the ablation). Both close nodes that can no longer grow.
#pragma once

#include <cstdint>
#include <optional>

#include "search/search_config.h"
#include "search/search_tree.h"

namespace kp::search {

struct ExpansionChoice {
    std::int64_t node_id = 0;
    // The proposal kinds that widening admits there now (both when widening is bypassed).
    bool parameter_moves_wanted = true;
    bool rewrites_wanted = true;
};

// May the proposer still be asked about this node?
bool proposer_callable(const TreeNode& node, const SearchConfig& config);

// Widening's verdict for one kind at one node: fewer children of that kind than allowed.
bool widening_admits(const TreeNode& node, ProposalKind kind, const SearchConfig& config);

// Picks the node to expand, closing (reason "exhausted") nodes found unable to grow on the way.
// nullopt: nothing in the tree can grow any more.
std::optional<ExpansionChoice> select_for_expansion(SearchTree& tree, const SearchConfig& config);

// The UCT score of `child` under `parent`: value + c * sqrt(ln N_parent / N_child), where value
// mixes mean and max reward (config.max_backup_weight).
double uct_score(const TreeNode& parent, const TreeNode& child, const SearchConfig& config);

}  // namespace kp::search
