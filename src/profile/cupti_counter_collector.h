// Hardware counters without ncu: kernelpro-worker runs the candidate's call under CUPTI's range
// profiler (libkp_counters.so, user replay: the whole call once per pass, after an L2 flush) and
// answers with every kernel's metrics plus its launch (function attributes and the driver's
// occupancy for the real configuration). The result has ncu's metric names and shape
// (KernelMetrics), so the roofline and the tools read it exactly as they read ncu's CSV.
// Why: an ncu run costs 1.6 s on the H200 before it counts anything (start, attach, per-launch
// save/restore); the worker alone starts in 0.3 s. ncu remains for the source page.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "eval/protocol.h"
#include "eval/worker_client.h"
#include "gpu/occupancy.h"
#include "gpu/timeline.h"
#include "profile/collector.h"
#include "profile/kernel_metrics.h"
#include "profile/pc_samples.h"

namespace kp::profile {

struct CounterRequest {
    std::vector<std::string> metrics;      // ncu names; launch__*, device__* and profiler__* are answered from the launch
    WorkerRequest worker;                  // task, library and inputs (its mode is set to profile_counters)
    std::filesystem::path worker_executable;
    std::filesystem::path counters_library;  // libkp_counters.so
    int max_kernels = 16;                  // kernel launches of one call
    int trace_calls = 0;                   // then calls traced with CUPTI's activity API (the call's timeline)
    bool pc_sampling = false;              // then one call under CUPTI's PC sampling
    // The worker stays for follow-up collections (the next collect() of this collector is one, in
    // the same process, until close()); PC sampling is switched on early for one when asked.
    bool keep_open = false;
    bool pc_sampling_later = false;
    gpu::OccupancyLimits limits = gpu::OccupancyLimits::sm90();  // per-resource occupancy limits
    std::string cache_key;                 // names the binary, its inputs and the GPU; empty = no caching
    bool refresh_cache = false;
    std::chrono::seconds timeout{120};
    double program_seconds = 0.4;          // the worker's run without profiling, for the cost estimate
    double call_seconds = 1e-3;            // one call of the candidate
    std::map<std::string, std::string> environment;  // extra environment for the worker (its GPU pin)
};

struct CounterResult {
    std::vector<KernelMetrics> kernels;    // in launch order
    int passes = 0;                        // replays of the whole call
    std::string chip;
    std::vector<std::string> notes;        // dropped ranges, occupancy cross-check, missing launch records
    std::optional<gpu::Timeline> timeline; // the traced calls (trace_calls > 0), when the trace worked
    int traced_calls = 0;
    std::string timeline_error;            // why there is no timeline although one was asked for
    std::optional<PcSampling> pc_sampling; // stall reasons per PC of one call (pc_sampling)
    std::string pc_sampling_error;
    nlohmann::json reply;                  // the worker's raw answer (what the cache keeps)
    bool from_cache = false;
};

// Metrics that are counted (CUPTI) rather than read from the launch.
bool is_counted_metric(const std::string& metric);
// The counted ones of `metrics`, sorted, each once (a repeated name costs CUPTI passes).
std::vector<std::string> counted_metrics(const std::vector<std::string>& metrics);

// The worker's counters reply -> kernels with ncu's metric names: counters as counted; launch__*
// from the launch record, with the per-resource occupancy limits from our calculator (the driver
// gives only the overall figure, which the calculator is checked against: a mismatch is a note);
// the traced calls' timeline when the reply has one.
Result<CounterResult> counter_result_from_reply(const nlohmann::json& reply, const gpu::OccupancyLimits& limits);

// Offline (no GPU): how many passes `chip` ("GH100") needs for the counted metrics, and which it
// cannot count, from the counters library's host API.
struct CounterPlan {
    int passes = 0;
    std::vector<std::string> unsupported;
};
Result<CounterPlan> plan_counters(const std::filesystem::path& counters_library, const std::string& chip,
                                  const std::vector<std::string>& metrics);

// One collector per call profiled: a collection with keep_open leaves its worker waiting, and the
// next collection is a follow-up in that process (no second worker start, CUDA context, module
// load or input preparation); close() ends it.
class CuptiCounterCollector {
public:
    explicit CuptiCounterCollector(std::optional<CollectorCache> cache = std::nullopt);
    CuptiCounterCollector(CuptiCounterCollector&&) noexcept;
    CuptiCounterCollector& operator=(CuptiCounterCollector&&) noexcept;
    ~CuptiCounterCollector();

    static constexpr const char* name() { return "counters"; }

    // Passes from our model of ncu's (an upper bound: for every tool's metrics CUPTI plans 8 passes
    // on GH100 where ncu made 10); seconds: the worker's run, CUPTI set-up, one call per pass.
    CollectorCost cost(const CounterRequest& request) const;

    // A follow-up when a worker is open, else a fresh worker (kept open with request.keep_open).
    // "process" in the reply's seconds: the wall time its phases do not account for (the worker's
    // start, CUDA context and module loads for a fresh one; the round trip for a follow-up).
    Result<CounterResult> collect(const CounterRequest& request);
    // Whether a worker waits for a follow-up.
    bool is_open() const { return open_ != nullptr; }
    // Ends the waiting worker; an error says what its ending revealed (a forged message, a
    // sandbox violation, a crash).
    Status close();

private:
    Result<nlohmann::json> ask_worker(const CounterRequest& request, const std::vector<std::string>& counted);

    std::optional<CollectorCache> cache_;
    std::unique_ptr<WorkerConversation> open_;
};

}  // namespace kp::profile
