// What a profile of one build collects and how: the collectors, who counts, the budget, the cache,
// and where recorded inputs (counters, ceilings) come from instead of the GPU.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/planner.h"
#include "analysis/profile_data.h"
#include "analysis/roofline.h"
#include "diagnose/collector_registry.h"

namespace kp::diagnose {

// Who counts: automatic = the worker itself through CUPTI's range profiler (no ncu start-up, 1.6 s
// on the H200), and ncu for the source page or when CUPTI fails (a note says why); cupti = the
// worker only (an error when it cannot); ncu = always ncu.
enum class CounterSource { automatic, cupti, ncu };

// What stage 2 collects for one kernel, chosen once its first collection is in: the tools whose
// counters it counts, and whether the call's PC samples are taken (the lines findings quote).
struct Stage2Choice {
    std::vector<std::string> tools;
    bool sample_pcs = false;
};

struct ProfileOptions {
    std::string ncu_path;                  // empty: located (KERNELPRO_NCU, PATH, ...)
    std::vector<std::string> tools;        // empty: the tools of each kernel's roofline class
    // Stage 2 for one kernel, chosen from its first collection (the roofline's counters and launch
    // facts) and its roofline class: a profiling tree's leaf (autoprofiler::collect_by_tree). Set:
    // the first collection holds the roofline's counters only, and stage 2, in the same worker,
    // counts what the chosen tools need instead of what the class's tools (or `tools`) need; the
    // call's PC samples and trace are taken there, when a kernel's choice asks for them.
    std::function<Stage2Choice(const analysis::ProfileData&, const analysis::RooflineResult&)> stage2_choice;
    std::set<std::string> collectors = default_collector_registry().default_names();
    // Collectors asked for by name (--collectors): one that runs only when useful runs anyway (the
    // timeline for a call of one kernel).
    std::set<std::string> named_collectors;
    analysis::StagePlan stages = analysis::StagePlan::automatic;
    CounterSource counters = CounterSource::automatic;
    double budget_seconds = 120.0;         // all profiling together
    int budget_passes = 40;                // replay passes, both stages together
    int max_kernels = 16;                  // kernel launches of one call to profile
    int timeline_iterations = 5;
    bool use_cache = true;                 // reuse results collected for the same build, task and GPU
    std::filesystem::path cache_directory; // empty: <kernelpro cache>/profile
    std::function<void(const std::string&)> on_progress;
    // How findings name the candidate's source lines (the line info points at the build's copy of
    // it in the cache); empty: that copy's path.
    std::string source_name;
    // Diagnose from counters already recorded instead of counting now: ncu's (a `--page raw` or
    // `--metrics` CSV, base units) or a worker's counters reply (counters_reply_file, JSON; its
    // traced call's timeline comes with it). No GPU needed. The candidate's SASS and ptxas still
    // come from its build.
    std::filesystem::path ncu_csv;
    // Ceilings from this file (`kernelpro device --json` or its cache file) instead of this GPU's cache.
    std::filesystem::path ceilings_file;
    // Where to write the worker's profile_run request (kept, so the recorded ncu commands can be
    // re-run, e.g. by scripts/gpu-profile-check); empty: a scratch file, removed afterwards.
    std::filesystem::path request_file;
    // Where to write the worker's raw counters reply (CUPTI; first collection), as recorded fixtures
    // for the CPU tests; empty: not written.
    std::filesystem::path counters_reply_file;
    // Added to the environment of every process that runs the candidate (ncu, the counting and
    // tracing workers): a GPU pool's CUDA_VISIBLE_DEVICES, so the profile runs on the slot's GPU.
    std::map<std::string, std::string> environment;
};

}  // namespace kp::diagnose
