// What one profile of a build found and what it cost, and its three renderings: the terminal
// report, JSON (schema kernelpro.profile/1) and the compact feedback text given to an LLM.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/call_profile.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_data.h"
#include "profile/sass_summary.h"

namespace kp::diagnose {

struct KernelDiagnosis {
    analysis::Diagnosis diagnosis;
    bool roofline_known = false;           // false: offline (SASS/ptxas only) diagnosis
    std::vector<std::string> stage2_tools, stage2_dropped;
    // Facts known without counters, which a profiling tree's static and task signals test.
    std::optional<profile::SassSummary> sass;
    analysis::TaskBounds task;
    // Its launches in one call (same function, grid and block; the diagnosis is the launch of
    // median duration), their time together and their share of the call's kernel time.
    int launches = 1;
    std::string grid, block;
    double call_seconds = 0;
    double call_share = 0;
};

struct ProfileReport {
    std::string task, candidate;
    std::string library;                   // the built .so that was profiled
    std::vector<KernelDiagnosis> kernels;  // one per kernel and configuration, by time in the call (offline: by name)
    std::optional<analysis::CallProfile> call;  // shares and call-ranked findings; absent without kernel times
    std::string ceilings_source;           // "measured ..." or "datasheet ..."
    std::vector<std::string> notes;        // skipped collectors and why
    std::string environment_error;         // non-empty: a GPU stage could not run (exit 3)
    double seconds = 0;                    // wall time of the profiling (not the build)
    int ncu_runs = 0;
    int cupti_runs = 0;                    // counter collections in the worker (CUPTI range profiler)
    int worker_starts = 0;                 // counters workers started (a follow-up collection reuses one)
    int estimated_passes = 0;              // replay passes, by our model (0 when all came from the cache)
    int counted_passes = 0;                // kernel replays as counted (ncu's profiler__replayer_passes, CUPTI's passes per kernel); 0: unknown
    std::map<std::string, double> collector_seconds;  // wall time per collector (sass overlaps ncu)
    // Inside the counters worker (CUPTI): prepare (inputs, load, warm-up call), setup (CUPTI's),
    // passes, decode, trace, pc_sampling; the rest of "counters" is the worker's start and CUDA context.
    std::map<std::string, double> worker_seconds;
    std::vector<std::string> cached;       // collectors answered from the cache
    // Where the call's timeline came from: "counters run" (one call traced in the worker's counters
    // run, no run of its own), "traced run" (the worker again under libkp_timeline.so); "" none.
    std::string timeline_source;
    std::vector<std::string> commands;     // ncu command lines that ran
};

// Adds the wall time of its scope to one collector's total (ProfileReport::collector_seconds).
struct ChargeTime {
    double& seconds;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    ~ChargeTime() { seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); }
};

// "copy_vec4" from ncu's "copy_vec4(const float4 *, ...)": how notes name a kernel.
std::string short_kernel_name(const std::string& name);

std::string render_profile_text(const ProfileReport& report);
nlohmann::json profile_report_json(const ProfileReport& report);
std::string render_profile_feedback(const ProfileReport& report);

}  // namespace kp::diagnose
