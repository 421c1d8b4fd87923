// What a live profile of one kernel costs for the actions a tree's walk takes, added up the way a
// profile spends it (src/diagnose: collect_first, collect_stage2): the counters worker starts once;
// its first collection always holds the roofline's counters, plus, for a tree without a test,
// every counter of the leaf's tools (one run); a tree that tests counts the tools' counters in a
// second collection in the same worker (a follow-up: CUPTI's set-up again, no second start), and
// takes the PC-sampled and traced calls there. Passes are CUPTI's plan for the union of a
// collection's counters (not a sum per action: counters share passes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "autoprofiler/catalogue.h"

namespace kp::autoprofiler {

// How a tree's profile collects: one run (a tree without a test: its tools are known before
// anything is counted), or the roofline's collection first, whatever the tree, then the rest.
enum class CollectionShape { one_run, roofline_first };

// The cost of a profile that takes `taken` (no GPU action and one_run: nothing runs, zero).
ActionCost profile_cost(const std::vector<std::string>& taken, CollectionShape shape, const CostTable& costs);

// Replay passes of one collection of `counters` on the table's chip: CUPTI's host plan through
// libkp_counters.so (memoized per set), or nullopt when the library or the chip is not at hand.
std::optional<int> planned_passes(const std::string& chip, const std::vector<std::string>& counters);

}  // namespace kp::autoprofiler
