// One profile in progress: what it was asked for, what its steps have collected so far, and the
// report it fills in. Internal to kp_diagnose; each step (profile_steps.h) reads and adds to it.
#pragma once

#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/micro_tool.h"
#include "analysis/planner.h"
#include "analysis/profile_data.h"
#include "build/candidate_builder.h"
#include "common/files.h"
#include "diagnose/counter_collection.h"
#include "diagnose/profile_options.h"
#include "diagnose/profile_report.h"
#include "diagnose/session_ceilings.h"
#include "profile/collector.h"
#include "profile/ptxas_report.h"
#include "profile/sass_collector.h"
#include "task/task_spec.h"

namespace kp::diagnose {

using Clock = std::chrono::steady_clock;

// The SASS collection runs on its own thread while the counters are collected; its result and the
// seconds it took.
using SassOutcome = std::pair<std::optional<Result<profile::SassCollection>>, double>;

struct ProfileSession {
    ProfileSession(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options);

    const TaskSpec& task;
    const BuildOutcome& build;
    const ProfileOptions& options;
    Clock::time_point start = Clock::now();
    ProfileReport report;
    // Always written; read unless use_cache is off (then everything is collected afresh and
    // replaces what the cache held).
    profile::CollectorCache cache;
    bool refresh = false;
    SessionCeilings ceilings;

    // From the build (no GPU).
    std::future<SassOutcome> sass_future;
    bool sass_joined = false;
    std::optional<profile::SassCollection> sass;
    std::optional<profile::PtxasReport> ptxas;
    std::vector<std::string> entry_kernels;  // by mangled name, from ptxas (else SASS)

    // On the GPU.
    std::filesystem::path worker;
    std::optional<ScratchDirectory> scratch;
    std::string cache_key;  // the build, the task (its inputs), the GPU and the ncu asked for
    std::optional<CounterCollection> counters;
    std::vector<const analysis::MicroTool*> candidate_tools;  // named, else every tool
    std::vector<std::string> stage1_metrics;
    bool all_tools_counted = false;        // every tool's counters are in hand already
    analysis::ProfilingPlan one_run_plan;  // their plan, when all_tools_counted

    // One entry per kernel launch of the call, longest first once counted.
    std::vector<analysis::ProfileData> kernels;
    std::vector<analysis::ProfilingPlan> plans;  // stage 2's, by kernel

    bool wants(const char* collector) const { return options.collectors.count(collector) > 0; }
    void progress(const std::string& line) const;
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
};

}  // namespace kp::diagnose
