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

// How the counters are collected: automatic = one collection with the roofline's and every tool's
// counters when that fits the budget, else two; one_run = always one (tools that do not fit are
// dropped); two_runs = the roofline first, then only the tools of each kernel's class (fewer
// passes, one more start-up).
enum class StagePlan { automatic, one_run, two_runs };

// The first counter collection: the roofline's counters, the launch configuration and the pass
// count, plus, when they fit the budget (or with StagePlan::one_run), every given tool's counters,
// so that no second collection is needed (all_tools) and the roofline class only picks among the
// tools afterwards.
struct FirstRunPlan {
    std::vector<std::string> roofline_metrics;  // stage 1 alone
    std::vector<std::string> metrics;           // what the collection asks for
    bool source_page = false;                   // only when the source page is allowed
    bool all_tools = false;
    ProfilingPlan tools_plan;                   // the tools' share, when all_tools
};
FirstRunPlan plan_first_collection(const std::vector<const MicroTool*>& tools, StagePlan stages, const PlanBudget& budget,
                                   bool source_page_allowed);

}  // namespace kp::analysis
