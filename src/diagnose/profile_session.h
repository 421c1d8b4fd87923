// One profile in progress: what it was asked for, the enabled collectors, what they have
// collected so far, and the report it fills in. Internal to kp_diagnose; the collectors
// (collectors/*.cpp) and the steps between their stages (session_steps.h) read and add to it.
#pragma once

#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/planner.h"
#include "analysis/profile_data.h"
#include "build/candidate_builder.h"
#include "common/files.h"
#include "diagnose/collector.h"
#include "diagnose/counter_collection.h"
#include "diagnose/profile_options.h"
#include "diagnose/profile_report.h"
#include "diagnose/session_ceilings.h"
#include "gpu/timeline.h"
#include "profile/collector.h"
#include "profile/ncu_collector.h"
#include "profile/ptxas_report.h"
#include "profile/sass_collector.h"
#include "task/task_spec.h"

namespace kp::diagnose {

using Clock = std::chrono::steady_clock;

// The SASS collection runs on its own thread while the counters are collected; its result and the
// seconds it took.
using SassOutcome = std::pair<Result<profile::SassCollection>, double>;

struct ProfileSession {
    ProfileSession(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options,
                   std::vector<const Collector*> collectors);

    const TaskSpec& task;
    const BuildOutcome& build;
    const ProfileOptions& options;
    const std::vector<const Collector*> collectors;  // the enabled ones, in registration order
    CollectionPlan plan;                             // what they told the session (configure)
    Clock::time_point start = Clock::now();
    ProfileReport report;
    // Always written; read unless use_cache is off (then everything is collected afresh and
    // replaces what the cache held).
    profile::CollectorCache cache;
    bool refresh = false;
    SessionCeilings ceilings;

    // From the build (no GPU).
    std::future<SassOutcome> sass_future;
    std::optional<profile::SassCollection> sass;
    std::optional<profile::PtxasReport> ptxas;
    std::vector<std::string> entry_kernels;  // by mangled name, from ptxas (else SASS)

    // On the GPU (prepare_gpu).
    bool gpu_ready = false;
    std::filesystem::path worker;
    std::optional<ScratchDirectory> scratch;
    std::string cache_key;  // the build, the task (its inputs), the GPU and the ncu asked for

    // The counters: the first collection (or the recorded CSV) gives the kernel list.
    std::optional<CounterCollection> counters;
    profile::NcuResult first_collection;
    std::vector<std::string> stage1_metrics;
    // The call's timeline when the counters run traced it (or the recorded reply holds one), and
    // the number of calls it holds; the timeline collector then needs no run of its own.
    std::optional<gpu::Timeline> call_timeline;
    int call_timeline_calls = 1;
    // CUPTI's PC samples of one call, when the counters run took them (or the recorded reply holds them).
    std::optional<profile::PcSampling> pc_sampling;
    // With a profiling tree (options.stage2_choice) the first collection in the worker leaves the
    // call's trace and PC samples to stage 2, which takes them when a kernel's leaf does: the
    // timeline and the lines are then read after it (stage2_traces: it asked for the trace).
    bool call_data_later = false;
    bool stage2_traces = false;
    // Whether the call's trace and PC samples are read at `stage`: at `reconcile` when stage 2
    // took them, else at their own stage.
    bool call_data_read_at(CollectorStage stage) const { return (stage == CollectorStage::reconcile) == call_data_later; }
    bool all_tools_counted = false;        // every tool's counters are in hand already
    analysis::ProfilingPlan one_run_plan;  // their plan, when all_tools_counted

    // One entry per kernel launch of the call, longest first once counted.
    std::vector<analysis::ProfileData> kernels;
    std::vector<analysis::ProfilingPlan> plans;  // stage 2's, by kernel

    bool recorded() const { return !options.ncu_csv.empty(); }  // counters replayed from --ncu-csv
    void progress(const std::string& line) const;
    double elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
};

}  // namespace kp::diagnose
