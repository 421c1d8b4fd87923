// The protocol between the orchestrator (kernelpro, which never loads candidate code) and the
// worker process (kernelpro-worker, which owns the CUDA context and loads the libraries).
// Documented in docs/worker-protocol.md. Bump kWorkerProtocol on any incompatible change.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/sample_statistics.h"
#include "sandbox/sandbox_settings.h"

namespace kp {

inline constexpr const char* kWorkerProtocol = "kp-worker/2";

struct TimingConfig {
    bool enabled = true;
    int warmup_calls = 2;
    int input_sets = 3;  // rotated across samples (and refilled from fresh seeds every sample)
    StoppingRule stopping;
    // Where each timed interval starts (gpu_session.h, TimedStart): false, on an idle GPU (the
    // interval holds the host's launch latency); true, queued behind a held stream (the GPU's time
    // alone). A call that waits on the GPU inside kp_forward falls back to idle for every side.
    bool queued_start = true;
    // A sample whose host-clock time (launch to device-wide sync) exceeds the event time by more than
    // this factor plus slack means work the timed stream did not see.
    double host_factor = 1.5;
    double host_slack_seconds = 300e-6;
};

// What may differ between two evaluations of the same candidate, so that a kernel tuned to one
// (a poison pattern it recognises, buffer addresses it keyed a cache on) fails the other: the
// output poison patterns of the two runs of each correctness trial, and where buffers land.
struct EvaluationVariant {
    unsigned char poison_a = 0xFF;  // every float NaN
    unsigned char poison_b = 0x5A;  // finite garbage, distinct integers
    uint64_t layout = 0;            // 0: buffers as cudaMalloc returns them; else shifted per buffer
};

// A trusted library timed beside the candidate (the PyTorch bridge's `compile` baseline).
struct NamedLibrary {
    std::string name;
    std::string library;
};

// Energy per call from NVML's total-energy counter (evaluate mode, after timing; docs/evaluation.md).
struct EnergyConfig {
    bool enabled = false;
    int windows = 5;                  // repeated windows per side, for the spread
    double min_window_seconds = 1.0;  // each window lasts at least this and 10 counter updates
    double period_factor = 10.0;
    bool measure_baseline = true;     // the search needs only the candidate's (the baseline is node 0)
};

struct WorkerRequest {
    std::string mode = "evaluate";  // evaluate | profile_run | profile_counters | sandbox_check | device_check
    nlohmann::json task;            // to_json(TaskSpec)
    std::string reference_library;  // reference kernel, or empty when data sets are given
    std::vector<std::string> reference_data_sets;  // safetensors files with inputs and outputs
    std::string baseline_library;   // empty: the reference is the baseline
    // Trusted libraries built by kernelpro (reference_library too, when it exports kp_bridge_*),
    // loaded and configured before the candidate, timed in the same interleaved samples.
    std::vector<NamedLibrary> extra_baselines;
    std::string candidate_library;
    // CUTLASS candidates: libkp_launch_gate.so, which the candidate links for its cluster launches;
    // loaded before the sandbox and the candidate, asked after every call (docs/cutlass.md).
    std::string launch_gate_library;
    uint64_t seed = 0;              // chosen by the orchestrator at random; the candidate never sees it
    int trials = 5;
    TimingConfig timing;
    EnergyConfig energy;
    double call_timeout_seconds = 10.0;
    int profile_iterations = 1;     // profile_run: calls inside the profiler range
    bool profile_reference = false; // profile_run: run the reference instead of the candidate
    // profile_counters: these hardware counters for every kernel of one call, collected in the
    // worker by libkp_counters.so (this path) with CUPTI's range profiler, at most max_kernels.
    std::vector<std::string> counter_metrics;
    std::string counters_library;
    int max_kernels = 16;
    // profile_counters: then this many calls traced with CUPTI's activity API (the call's
    // timeline, in the reply's "timeline"); 0: none.
    int trace_calls = 0;
    // profile_counters: then one call under CUPTI's PC sampling (stall reasons per PC, in the
    // reply's "pc_sampling").
    bool pc_sampling = false;
    // profile_counters: PC sampling switched on before the candidate's module loads although this
    // collection takes no samples, so that a follow-up collection may (PC records exist only for
    // modules loaded while sampling is on).
    bool pc_sampling_later = false;
    // profile_counters: after this collection the worker sends a `collection` message and reads
    // follow-up collections from stdin, one JSON line each, in the same process (no second worker
    // start, CUDA context or module load); end of stdin ends it (docs/worker-protocol.md).
    bool follow_ups = false;
    EvaluationVariant variant;
    // The sandbox around candidate code (run_worker fills in the scratch folder and the layers
    // KERNELPRO_SANDBOX_DISABLE turns off when left empty).
    sandbox::SandboxSettings sandbox;
    // Stamped by the worker on every message; a message without it was not written by the worker.
    // run_worker draws one when empty.
    std::string nonce;
};

// "queued" or "idle": TimingConfig::queued_start as the request and the result's timing write it.
inline const char* timed_start_name(bool queued) { return queued ? "queued" : "idle"; }

nlohmann::json to_json(const WorkerRequest& request);
WorkerRequest worker_request_from_json(const nlohmann::json& j);

// One collection of a profile_counters run: the request's own (first_ask in the worker), or a
// follow-up that kernelpro writes to the worker's stdin as one JSON line of these keys
// (WorkerRequest::follow_ups, docs/worker-protocol.md).
struct CountingAsk {
    std::vector<std::string> counter_metrics;  // none: no replay pass (a follow-up that only samples or traces)
    int max_kernels = 16;
    int trace_calls = 0;
    bool pc_sampling = false;
    double call_seconds = 0;  // the call's kernel time, for the sampling period when no counter gives it
};

nlohmann::json to_json(const CountingAsk& ask);
// The keys a line leaves out keep the values of `defaults`.
CountingAsk counting_ask_from_json(const nlohmann::json& j, const CountingAsk& defaults = {});

}  // namespace kp
