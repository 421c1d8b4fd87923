// The profiling pipeline behind `kernelpro profile` (and, later, `optimize`): given a task and a
// built candidate, collect what the tools need and diagnose every kernel of one call.
// Counters are collected by the worker itself through CUPTI's range profiler (or by ncu: see
// CounterSource), in one collection when they fit the budget (see StagePlan); otherwise:
//   stage 1: the roofline counters of one call (the warm-up is outside the profiled range), SASS
//            and ptxas from the build (no GPU), occupancy for the real launch, an optional CUPTI timeline;
//   classify each kernel on the roofline;
//   stage 2: plan_profiling for the class, within the budget left -> a second collection with the
//            extra metrics (and ncu's source page when a tool asks for it and `source` is on); diagnose and rank.
// Without a GPU the GPU stages are skipped with the reason, and the tools that can judge
// from SASS and ptxas alone still run (environment_error then says what needed the GPU).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis.h"
#include "analysis/planner.h"
#include "build/candidate_builder.h"
#include "gpu/ceilings.h"
#include "common/result.h"
#include "task/task_spec.h"

namespace kp::cli {

// ncu: hardware counters (collected in the worker through CUPTI's range profiler by default, by ncu
// with --counters ncu or when that fails; see CounterSource); source: ncu's source page (per-SASS-instruction counters and warp-stall samples,
// for the tools that point at lines; about 12 more passes, so not collected unless asked for);
// sass, ptxas: from the build, no GPU; timeline: CUPTI activity trace; occupancy: the occupancy
// calculator with the real launch.
inline const std::set<std::string>& all_profile_collectors() {
    static const std::set<std::string> names = {"ncu", "source", "sass", "ptxas", "timeline", "occupancy"};
    return names;
}
inline const std::set<std::string>& default_profile_collectors() {
    static const std::set<std::string> names = {"ncu", "sass", "ptxas", "timeline", "occupancy"};
    return names;
}
inline std::string known_collector_list() { return "ncu, source, sass, ptxas, timeline, occupancy"; }

// --collectors: a plain list replaces `base`; +NAME adds to it, -NAME removes. Returns the set and
// whether the timeline was named (then it runs whatever the number of kernels).
Result<std::pair<std::set<std::string>, bool>> apply_collector_list(const std::vector<std::string>& items,
                                                                    const std::set<std::string>& base);

// How the counters are collected: automatic = one ncu run with the roofline's and every tool's
// counters when that fits the budget, else two; two_runs = the roofline first, then only the
// tools of each kernel's class (fewer passes, one more ncu start-up).
enum class StagePlan { automatic, one_run, two_runs };

// Who counts: automatic = the worker itself through CUPTI's range profiler (no ncu start-up, 1.6 s
// on the H200), and ncu for the source page or when CUPTI fails (a note says why); cupti = the
// worker only (an error when it cannot); ncu = always ncu.
enum class CounterSource { automatic, cupti, ncu };

struct ProfileOptions {
    std::string ncu_path;                  // empty: located (KERNELPRO_NCU, PATH, ...)
    std::vector<std::string> tools;        // empty: the tools of each kernel's roofline class
    std::set<std::string> collectors = default_profile_collectors();
    StagePlan stages = StagePlan::automatic;
    CounterSource counters = CounterSource::automatic;
    bool timeline_always = false;          // false: only when a call launches two or more kernels
    double budget_seconds = 120.0;         // all profiling together
    int budget_passes = 40;                // ncu replay passes, both stages together
    int max_kernels = 16;                  // kernel launches of one call to profile
    int timeline_iterations = 5;
    bool use_cache = true;                 // reuse results collected for the same build, task and GPU
    std::filesystem::path cache_directory; // empty: <kernelpro cache>/profile
    std::function<void(const std::string&)> on_progress;
    // How findings name the candidate's source lines (the line info points at the build's copy of
    // it in the cache); empty: that copy's path.
    std::string source_name;
    // Diagnose from counters ncu already recorded (a `--page raw` or `--metrics` CSV, base units)
    // instead of running ncu: no GPU needed. The candidate's SASS and ptxas still come from its build.
    std::filesystem::path ncu_csv;
    // Ceilings from this file (`kernelpro device --json` or its cache file) instead of this GPU's cache.
    std::filesystem::path ceilings_file;
    // Where to write the worker's profile_run request (kept, so the recorded ncu commands can be
    // re-run, e.g. by scripts/gpu-profile-check); empty: a scratch file, removed afterwards.
    std::filesystem::path request_file;
    // Where to write the worker's raw counters reply (CUPTI; first collection), as recorded fixtures
    // for the CPU tests; empty: not written.
    std::filesystem::path counters_reply_file;
};

struct KernelDiagnosis {
    analysis::Diagnosis diagnosis;
    bool roofline_known = false;           // false: offline (SASS/ptxas only) diagnosis
    std::vector<std::string> stage2_tools, stage2_dropped;
};

struct ProfileReport {
    std::string task, candidate;
    std::string library;                   // the built .so that was profiled
    std::vector<KernelDiagnosis> kernels;  // by duration, longest first (offline: by name)
    std::string ceilings_source;           // "measured ..." or "datasheet ..."
    std::vector<std::string> notes;        // skipped collectors and why
    std::string environment_error;         // non-empty: a GPU stage could not run (exit 3)
    double seconds = 0;                    // wall time of the profiling (not the build)
    int ncu_runs = 0;
    int cupti_runs = 0;                    // counter collections in the worker (CUPTI range profiler)
    int estimated_passes = 0;              // replay passes, by our model (0 when all came from the cache)
    int counted_passes = 0;                // kernel replays as counted (ncu's profiler__replayer_passes, CUPTI's passes per kernel); 0: unknown
    std::map<std::string, double> collector_seconds;  // wall time per collector (sass overlaps ncu)
    std::vector<std::string> cached;       // collectors answered from the cache
    std::vector<std::string> commands;     // ncu command lines that ran
};

// The first ncu run: the roofline's counters, the launch configuration and ncu's pass count, plus,
// when they fit the budget (or with StagePlan::one_run), every given tool's counters, so that no
// second run is needed (all_tools) and the roofline class only picks among the tools afterwards.
struct FirstRunPlan {
    std::vector<std::string> roofline_metrics;  // stage 1 alone
    std::vector<std::string> metrics;           // what the run collects
    bool source_page = false;                   // only with the `source` collector
    bool all_tools = false;
    analysis::ProfilingPlan tools_plan;         // the tools' share, when all_tools
};
FirstRunPlan plan_first_ncu_run(const ProfileOptions& options, const std::vector<const analysis::MicroTool*>& tools);

// The measured ceilings as the roofline reads them: FLOP/s figures all at one reference clock (the
// FP32 measurement's), the datasheet where something was not measured.
analysis::DeviceCeilings analysis_ceilings(const gpu::DeviceCeilings& measured);

Result<ProfileReport> profile_candidate_report(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options);

// The main (longest) kernel's diagnosis; an error when nothing could be diagnosed.
Result<analysis::Diagnosis> profile_candidate(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options);

std::string render_profile_text(const ProfileReport& report);
nlohmann::json profile_report_json(const ProfileReport& report);
std::string render_profile_feedback(const ProfileReport& report);
// One line per registered tool: name, classes, data it needs.
std::string render_tool_list();
// The same as JSON (schema kernelpro.tools/1), with every metric each tool asks ncu for and the
// roofline (stage 1) metrics: what scripts/ncu-cost-probe measures pass counts of.
nlohmann::json tool_list_json();

}  // namespace kp::cli
