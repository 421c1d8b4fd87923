// The GPUs one kernelpro process evaluates on: one slot per worker, each pinned to its device, and
// the scheduler that hands slots to whoever has a built candidate ready (builds run on the callers'
// threads, so the next candidates compile while the slots time the current ones). A device that
// fails is checked, retired and reported, and the evaluation it held is given back to the queue.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "eval/throughput_meter.h"
#include "gpu/gpu_selection.h"

namespace kp {

// A slot is one worker's place on a GPU (two slots may share one GPU: `--gpus 0,0`; they then take
// turns, so that no timing shares its GPU with other work, while the builds still overlap them).
using GpuSlot = gpu::SelectedGpu;

// What a job tells the pool about the device it ran on.
struct SlotVerdict {
    bool device_suspect = false;  // the failure may be the device's (a worker that could not start, a device error)
    std::string reason;
};

struct RetiredSlot {
    int slot = 0;
    GpuSlot device;
    std::string reason;
};

class GpuPool {
public:
    using Job = std::function<SlotVerdict(int slot, const GpuSlot& device)>;
    // Does the device still work (a worker starts on it and says hello)? Error: it does not.
    using HealthCheck = std::function<Status(const GpuSlot& device)>;

    // `check` decides whether a suspect device is retired; without one a suspect device always is.
    explicit GpuPool(std::vector<GpuSlot> slots, HealthCheck check = {});

    // Runs `job` on the lowest-numbered free slot that is not retired and whose GPU no other slot is
    // using, as soon as there is one;
    // callers waiting are served in arrival order. A job that reports its device suspect makes
    // the pool run the health check: a device that fails it is retired (never used again,
    // listed by retired()) and the job runs again on another slot; a device that passes means the
    // failure was the job's own, and run returns with the job's verdict standing. Errors only
    // when every slot has been retired. `evaluation`: count it as a candidate evaluated.
    Status run(const Job& job, bool evaluation = true);

    size_t size() const { return slots_.size(); }
    const GpuSlot& slot(size_t i) const { return slots_[i]; }
    std::vector<RetiredSlot> retired() const;
    ThroughputMeter& meter() { return meter_; }
    const ThroughputMeter& meter() const { return meter_; }

    // {"gpus": [slots], "retired": [{slot, device, reason}], "throughput": {...}}
    nlohmann::json to_json() const;
    // "Throughput: ...", then a "Retired: GPU n (...): reason" paragraph per retired slot.
    std::string summary_markdown() const;

private:
    std::vector<GpuSlot> slots_;
    HealthCheck check_;
    ThroughputMeter meter_;
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<bool> busy_, retired_flags_;
    std::vector<RetiredSlot> retired_;
    std::deque<unsigned long> waiting_;  // tickets, in arrival order
    unsigned long next_ticket_ = 0;
};

}  // namespace kp
