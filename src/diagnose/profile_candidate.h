// The profile of one built candidate, behind `kernelpro profile`, `optimize --profile` and the
// search's evaluator: the enabled collectors (collector.h) gather what the tools need for every
// kernel of one call, stage by stage; then each kernel is diagnosed and the report says what it
// cost. Counters are collected by the worker itself
// through CUPTI's range profiler (or by ncu: see CounterSource), in one collection when they fit
// the budget (analysis::StagePlan); otherwise:
//   stage 1: the roofline counters of one call (the warm-up is outside the profiled range), SASS
//            and ptxas from the build (no GPU), occupancy for the real launch, an optional CUPTI timeline;
//   classify each kernel on the roofline;
//   stage 2: plan_profiling for the class, within the budget left -> a second collection with the
//            extra metrics (and ncu's source page when a tool asks for it and `source` is on).
// Without a GPU the GPU stages are skipped with the reason, and the tools that can judge from
// SASS and ptxas alone still run (environment_error then says what needed the GPU).
#pragma once

#include "analysis/diagnosis.h"
#include "build/candidate_builder.h"
#include "common/result.h"
#include "diagnose/collector_registry.h"
#include "diagnose/profile_options.h"
#include "diagnose/profile_report.h"
#include "task/task_spec.h"

namespace kp::diagnose {

// Errors only for what is not the environment's fault (the build failed, an unknown collector or
// tool, an unreadable recorded CSV); a missing GPU or tool is a report with environment_error.
// The collectors named in options.collectors come from `registry` (a test may add its own).
Result<ProfileReport> profile_candidate_report(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options,
                                               const CollectorRegistry& registry = default_collector_registry());

// The main (longest) kernel's diagnosis; an error when nothing could be diagnosed.
Result<analysis::Diagnosis> profile_candidate(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options);

}  // namespace kp::diagnose
