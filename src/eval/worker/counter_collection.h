// The worker's side of in-process counters: opens libkp_counters.so (named by the request) and
// lets it replay one call per pass, with an L2 flush before each pass outside the profiled range.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/protocol.h"
#include "eval/worker/gpu_session.h"
#include "gpu/dynamic_library.h"

namespace kp::worker {

// What the request asks of its first collection.
CountingAsk first_ask(const WorkerRequest& request);

// A follow-up collection from one line of stdin ({"counter_metrics": [...], "trace_calls": N,
// "pc_sampling": bool, "call_seconds": S}); nullopt at the end of stdin, after `wait_seconds` of
// silence, or on a line that is not such an object (the orchestrator writes nothing else).
std::optional<CountingAsk> read_follow_up(int fd, const WorkerRequest& request, double wait_seconds);

// The library's reply (see src/gpu/counters/kp_counters.h), or {"error": ...} when the library
// cannot be opened. A failure of the candidate's own call is rethrown as it was (WorkerFailure).
nlohmann::json collect_counters(const CountingAsk& ask, const std::string& counters_library, GpuSession& gpu,
                                const std::function<void(const std::string& phase)>& call);

// Switches PC sampling on before the candidate's module loads (CUPTI gives PC records only for
// modules it saw load); a failure leaves it to the sampled call to enable, without PC records.
void enable_pc_sampling_early(const gpu::DynamicLibrary& counters_library);

}  // namespace kp::worker
