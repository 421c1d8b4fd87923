// The worker's evaluate mode: reference outputs first (before any candidate code is loaded), then
// correctness trials, then interleaved cold timing of baseline and candidate.
#pragma once

#include <nlohmann/json.hpp>

#include "eval/protocol.h"
#include "eval/worker/candidate_gate.h"
#include "eval/worker/channel.h"
#include "eval/worker/gpu_session.h"

namespace kp::worker {

// Returns the result document; failures of the candidate are thrown as WorkerFailure.
// `gate` puts the sandbox on before candidate code loads (the reference runs before it).
nlohmann::json run_evaluation(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate);

// profile_run mode: inputs, one untimed warm-up, then `profile_iterations` calls between
// cudaProfilerStart and cudaProfilerStop so ncu (--profile-from-start off) sees only those.
nlohmann::json run_profile(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate);

// profile_counters mode: the same inputs and warm-up, then request.counter_metrics for every kernel
// of one call through libkp_counters.so (CUPTI range profiler; the call is replayed once per pass,
// each pass after an L2 flush, as ncu does). The result carries the library's reply as "counters".
nlohmann::json run_counters(const WorkerRequest& request, GpuSession& gpu, const Channel& channel, CandidateGate& gate);

}  // namespace kp::worker
