// The worker's side of in-process counters: opens libkp_counters.so (named by the request) and
// lets it replay one call per pass, with an L2 flush before each pass outside the profiled range.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/protocol.h"
#include "eval/worker/gpu_session.h"

namespace kp::worker {

// The library's reply (see src/gpu/counters/kp_counters.h), or {"error": ...} when the library
// cannot be opened. A failure of the candidate's own call is rethrown as it was (WorkerFailure).
nlohmann::json collect_counters(const WorkerRequest& request, GpuSession& gpu,
                                const std::function<void(const std::string& phase)>& call);

}  // namespace kp::worker
