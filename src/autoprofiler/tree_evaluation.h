// Walks a tree for one kernel: the actions of the nodes on its path are taken in order while they
// fit the budget (one that does not fit is dropped and the next tried, so the result is
// deterministic); a test whose signal is unknown (its action was dropped) goes `below`. The
// feedback is the kernel's findings from the tools taken, as the leaf renders them.
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "autoprofiler/catalogue.h"
#include "autoprofiler/kernel_record.h"
#include "autoprofiler/profiling_tree.h"

namespace kp::autoprofiler {

struct Budget {
    double seconds = 1e9;
    int passes = 1 << 20;
};

// Whether a cost stays within the budget.
bool fits(const ActionCost& cost, const Budget& budget);

struct TreeOutcome {
    std::string leaf;
    std::vector<std::string> path;       // node names, root first
    std::vector<std::string> taken, dropped;
    ActionCost cost;                     // of what was taken, start-up included
    std::vector<analysis::Finding> findings;  // shown, highest gain first
    std::string feedback;                // the text the writer reads
};

// render = false leaves feedback empty (the learner scores thousands of trees and reads no text).
TreeOutcome evaluate_tree(const ProfilingTree& tree, const KernelRecord& kernel, const CostTable& costs, const Budget& budget,
                          bool render = true);

}  // namespace kp::autoprofiler
