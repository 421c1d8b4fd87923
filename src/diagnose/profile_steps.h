// The steps of a profile, in the order profile_candidate_report runs them. Each reads and adds to
// the session; a step that cannot run adds a note (or, for the GPU steps that everything after
// depends on, returns the reason and the profile falls back to the offline diagnosis).
#pragma once

#include <string>

#include "analysis/profile_data.h"
#include "common/result.h"
#include "diagnose/profile_session.h"

namespace kp::diagnose {

// ---- from the build (build_artifacts.cpp) ----
// Starts the SASS disassembly on its own thread and reads ptxas from the build log.
void start_build_artifacts(ProfileSession& session);
// Waits for the SASS thread (called where the SASS is first needed, after the counters).
void join_sass(ProfileSession& session);
// The entry kernels by mangled name, from ptxas (else SASS).
void find_entry_kernels(ProfileSession& session);
// A kernel's data from the build: its SASS (source lines named as the candidate), its summary and
// its ptxas resources, with the ceilings and the task's minimal cost.
analysis::ProfileData kernel_data(ProfileSession& session, const std::string& kernel_name);

// ---- counters (counters_steps.cpp) ----
// Counters ncu recorded before (--ncu-csv): every kernel with its metrics, no GPU.
Status load_recorded_counters(ProfileSession& session);
// The worker, the scratch folder and the cache key every GPU result is stored under.
Status prepare_gpu_steps(ProfileSession& session);
// The worker's profile_run request for `iterations` calls, written to `path` (ncu and the timeline
// start the worker with it).
Result<std::filesystem::path> write_profile_request(const ProfileSession& session, int iterations, const std::filesystem::path& path);
// The first collection: the roofline's counters, and every tool's when they fit (see
// analysis::plan_first_collection); the kernel list comes from it.
Status collect_first_counters(ProfileSession& session);
// Classifies each counted kernel, plans stage 2 for its class within the budget left and collects
// the extra counters (and the source page) in one more collection, merged by launch.
void classify_and_collect_stage2(ProfileSession& session);

// ---- whole call (timeline_step.cpp) ----
// The CUPTI activity trace of the call, when it launches two or more kernels (or asked by name).
void collect_timeline(ProfileSession& session);

// ---- reconcile (occupancy_step.cpp) ----
// Occupancy for the real launch: the driver's calculation when the counters brought it, our
// calculator otherwise (and checked against the driver's); the achieved figure from the counters.
void reconcile_occupancy(ProfileSession& session);

// ---- diagnose (profile_candidate.cpp) ----
void sort_longest_first(ProfileSession& session);
void diagnose_kernels(ProfileSession& session);

}  // namespace kp::diagnose
