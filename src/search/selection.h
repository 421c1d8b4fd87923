// Where to grow the tree next. select_for_expansion gives a fresh repairable failure its repair
// attempt first, then asks the run's selection policy (a plug-in, see selection_policy.h: UCT with
// progressive widening, greedy refinement). The helpers below are what policies are built from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

// A child of this kind can come from here: one is queued, or the proposer may be asked for one.
bool kind_available(const TreeNode& node, ProposalKind kind, const SearchConfig& config);

// Not a dead end, and something left to try: a queued proposal or a proposer call.
bool can_grow_at_all(const TreeNode& node, const SearchConfig& config);

// Grow `node` with whatever kind is available there (widening bypassed).
ExpansionChoice grow_here(const TreeNode& node, const SearchConfig& config);

// Closes a node that cannot grow any more (and has no open child) with its whole subtree, as a
// dead end or "exhausted".
void close_spent(SearchTree& tree, const TreeNode& node);

// Picks the node to expand, closing nodes found unable to grow on the way; nullopt: nothing in
// the tree can grow any more. config.strategy names the selection policy (validated with the config).
std::optional<ExpansionChoice> select_for_expansion(SearchTree& tree, const SearchConfig& config);

// The UCT score of `child` under `parent`: value + c * sqrt(ln N_parent / N_child), where value
// mixes mean and max reward (config.max_backup_weight).
double uct_score(const TreeNode& parent, const TreeNode& child, const SearchConfig& config);

}  // namespace kp::search
