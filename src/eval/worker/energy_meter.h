// Energy per call from NVML's total-energy counter (millijoules, updated by the driver every few
// tens of milliseconds; the period is measured here, on the device, while a kernel runs). Windows of
// back-to-back calls, each at least max(min_window_seconds, period_factor x period) long, start and
// end on a counter update; the energy read after the last call finished is corrected by the idle
// power over the time between the finish and that update. Clock state and throttle reasons are
// sampled per window. Runs after timing, in the evaluate mode, when the request asks for it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/protocol.h"
#include "eval/worker/channel.h"
#include "eval/worker/gpu_session.h"

namespace kp::worker {

// One library's calls for the windows.
struct EnergySide {
    std::string role;                              // "candidate" | "baseline"
    double median_call_seconds = 0;                // from timing: sizes the batches and windows
    std::function<void(std::uint64_t)> enqueue;    // queues call number i (inputs rotate with i), no wait
    std::function<void()> verify;                  // after a window: the last outputs are right (throws)
};

// NVML opened for energy: made before any candidate code is loaded (and before a sandbox filter
// would stop NVML from opening its device nodes); later reads are ioctls on /dev/nvidia*.
class EnergyCounter;
struct EnergyCounterDeleter {
    void operator()(EnergyCounter* counter) const;
};
using EnergyCounterHandle = std::unique_ptr<EnergyCounter, EnergyCounterDeleter>;
// Null with `why` set when there is no usable counter.
EnergyCounterHandle open_energy_counter(std::string& why);

// {"available": true, "counter_update_period_s", "window_seconds", "idle_watts", "candidate": {...},
//  "baseline": {...}, "energy_ratio"} or {"available": false, "reason"} when there is no usable
// counter. Candidate failures (a crash, a hang, wrong outputs) throw WorkerFailure as elsewhere.
nlohmann::json measure_energy(const EnergyConfig& config, const EnergyCounter* counter, const std::string& why_no_counter,
                              GpuSession& gpu, const Channel& channel, const std::vector<EnergySide>& sides,
                              double call_timeout_seconds);

}  // namespace kp::worker
