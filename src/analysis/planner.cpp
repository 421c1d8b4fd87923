#include "analysis/planner.h"

#include <algorithm>
#include <set>

#include "profile/ncu_collector.h"
#include "profile/timeline_collector.h"

namespace kp::analysis {

profile::CollectorCost estimate_plan_cost(const ProfilingPlan& plan, const PlanInputs& inputs) {
    profile::CollectorCost cost;
    if (!plan.metrics.empty() || plan.source_page) {
        profile::NcuRequest request;
        request.metrics = plan.metrics;
        request.source_page = plan.source_page;
        request.kernel_seconds = inputs.kernel_seconds;
        request.program_seconds = inputs.program_seconds;
        request.program_argv = {"runner"};
        cost += profile::NcuCollector("ncu").cost(request);
    }
    if ((plan.sass || plan.ptxas) && !inputs.sass_cached) cost += profile::CollectorCost{0, 1.0};  // nvdisasm x2 + cuobjdump
    // A CUPTI activity trace runs the program once more without replay.
    if (plan.timeline) {
        profile::TimelineRequest request;
        request.program_seconds = inputs.program_seconds;
        cost += profile::TimelineCollector({}).cost(request);
    }
    return cost;
}

ProfilingPlan plan_profiling(RooflineClass kind, const std::vector<const MicroTool*>& tools, const PlanBudget& budget,
                             const PlanInputs& inputs) {
    ProfilingPlan plan;
    plan.kind = kind;
    std::set<std::string> metrics;
    for (const MicroTool* tool : tools) {
        ProfilingPlan trial = plan;
        std::set<std::string> trial_metrics = metrics;
        DataNeeds needs = tool->needs();
        trial_metrics.insert(needs.metrics.begin(), needs.metrics.end());
        trial.metrics.assign(trial_metrics.begin(), trial_metrics.end());
        trial.sass |= needs.sass;
        trial.ptxas |= needs.ptxas;
        trial.source_page |= needs.source_page && inputs.source_page_allowed;
        trial.timeline |= needs.timeline;
        trial.occupancy |= needs.occupancy;
        trial.cost = estimate_plan_cost(trial, inputs);
        if (trial.cost.replay_passes > budget.max_replay_passes || trial.cost.seconds > budget.max_seconds) {
            plan.dropped.emplace_back(tool->name());
            continue;
        }
        trial.tools.emplace_back(tool->name());
        plan = std::move(trial);
        metrics = std::move(trial_metrics);
    }
    plan.cost = estimate_plan_cost(plan, inputs);
    return plan;
}

}  // namespace kp::analysis
