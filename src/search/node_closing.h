// When a node stops being worth refining: failed leaves and dead ends (dead-end pruning).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "search/search_config.h"
#include "search/search_tree.h"

namespace kp::search {

// Did `child` fail, or improve on its parent by less than config.min_improvement?
bool failed_or_regressed(const SearchTree& tree, std::int64_t child, const SearchConfig& config);

// The dead-end rule for one node: its last `dead_end_window` evaluated children all failed or
// regressed. Never fires for the baseline, the only place every line of search starts from.
std::optional<std::string> dead_end_reason(const SearchTree& tree, std::int64_t id, const SearchConfig& config);

// Number of consecutive failed nodes ending at `id` (0 when it is correct).
int failure_chain_length(const SearchTree& tree, std::int64_t id);

// A failed node that may still be repaired: repairable class, chain not too long.
bool awaiting_repair(const SearchTree& tree, std::int64_t id, const SearchConfig& config);

// Applied right after node `id` is evaluated (live, and again when resume replays the store):
// a failed node becomes a closed leaf unless it is awaiting repair; then the parent is
// checked against the dead-end rule and, if it fires, gets no more children (selection closes its
// subtree once no open child is left).
void close_after_evaluation(SearchTree& tree, std::int64_t id, const SearchConfig& config);

}  // namespace kp::search
