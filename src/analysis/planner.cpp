#include "analysis/planner.h"

#include <algorithm>
#include <set>

#include "profile/kernel_metrics.h"
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

FirstRunPlan plan_first_collection(const std::vector<const MicroTool*>& tools, StagePlan stages, const PlanBudget& budget,
                                   bool source_page_allowed) {
    FirstRunPlan plan;
    plan.roofline_metrics = roofline_metric_names();
    for (const char* m : {profile::kReplayPassesMetric, "launch__block_size", "launch__grid_size", "launch__registers_per_thread",
                          "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic", "launch__waves_per_multiprocessor"})
        if (std::find(plan.roofline_metrics.begin(), plan.roofline_metrics.end(), m) == plan.roofline_metrics.end())
            plan.roofline_metrics.push_back(m);
    plan.metrics = plan.roofline_metrics;
    if (stages == StagePlan::two_runs) return plan;
    // One run when every tool's counters fit the budget along with the roofline's: measured on the
    // H200 they add a few passes to one ncu start-up, while a second ncu run costs a whole start-up
    // again. Two runs (automatic) when the budget is too tight for that.
    PlanBudget tools_budget = budget;
    tools_budget.max_replay_passes = budget.max_replay_passes - profile::estimate_ncu_replay_passes(plan.roofline_metrics, {}, false);
    PlanInputs inputs;
    inputs.sass_cached = true;
    inputs.source_page_allowed = source_page_allowed;
    ProfilingPlan tools_plan = plan_profiling(RooflineClass::balanced, tools, tools_budget, inputs);
    if (stages == StagePlan::automatic && !tools_plan.dropped.empty()) return plan;
    for (const auto& m : tools_plan.metrics)
        if (std::find(plan.metrics.begin(), plan.metrics.end(), m) == plan.metrics.end()) plan.metrics.push_back(m);
    plan.source_page = tools_plan.source_page;
    plan.all_tools = true;
    plan.tools_plan = std::move(tools_plan);
    return plan;
}

}  // namespace kp::analysis
