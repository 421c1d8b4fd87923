// Plans stage 2's profiling: given the roofline class and the tools chosen (by the profiling tree
// or the class), the union of metrics and collectors they need, its cost, and which tools were
// dropped to stay within the budget.
#pragma once

#include <string>
#include <vector>

#include "analysis/micro_tool.h"
#include "analysis/roofline.h"
#include "profile/collector.h"

namespace kp::analysis {

struct PlanBudget {
    int max_replay_passes = 40;
    double max_seconds = 120.0;
};

struct PlanInputs {
    double kernel_seconds = 1e-3;   // one launch, for the ncu cost model
    double program_seconds = 2.0;   // the runner's own run time
    bool sass_cached = false;       // SASS / ptxas already collected for this build: free
    bool source_page_allowed = true; // false: tools that want the source page do without it
};

struct ProfilingPlan {
    RooflineClass kind = RooflineClass::latency_bound;
    std::vector<std::string> tools;       // kept, in the given priority order
    std::vector<std::string> dropped;     // left out to stay within the budget
    std::vector<std::string> metrics;     // union, without duplicates, sorted
    bool sass = false, ptxas = false, source_page = false, timeline = false, occupancy = false;
    profile::CollectorCost cost;          // all collectors together
};

// Tools are considered in the order given (most valuable first); a tool whose extra cost would
// break the budget is dropped and the next one tried.
ProfilingPlan plan_profiling(RooflineClass kind, const std::vector<const MicroTool*>& tools, const PlanBudget& budget = {},
                             const PlanInputs& inputs = {});

// The cost of collecting `metrics` (+ options) for one kernel, with the same model.
profile::CollectorCost estimate_plan_cost(const ProfilingPlan& plan, const PlanInputs& inputs);

}  // namespace kp::analysis
