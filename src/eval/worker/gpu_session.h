// The worker's hold on the GPU: the context, the harness stream, the L2 flush buffer, and calls into
// kernel libraries that never block forever (every wait polls against the per-call timeout).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/worker/kernel_library.h"
#include "gpu/clock_monitor.h"

namespace kp::worker {

struct ColdSample {
    double event_seconds = 0;  // start/stop events on the harness stream
    double host_seconds = 0;   // host clock from just before the launch to after a device-wide sync
    unsigned sm_clock_mhz = 0;
    bool throttled = false;
    // Queued start only: the hold ran out before the host released it (kp_forward waited on the GPU,
    // or its host code took longer than the hold): the start event came late, the sample is unsound.
    bool hold_timed_out = false;
};

// Where the timed interval begins. Idle: the start event is recorded on an idle GPU, so the
// interval also holds the host's launch latency (what the caller of a single, synchronized call
// waits). Queued: the stream is held by a spinning kernel while the host queues start event, call
// and stop event, then released, so the interval is the GPU's time for the call alone (what ncu's
// gpu__time_duration and nvbench's cold measurement report, and what back-to-back calls cost).
enum class TimedStart { Idle, Queued };

class GpuSession {
public:
    explicit GpuSession(double call_timeout_seconds);
    ~GpuSession();

    // The harness stream is the legacy default stream: it implicitly waits for every other blocking
    // stream, so work a candidate sneaks onto the per-thread default stream is still inside the
    // timed interval (and stream creation is rejected by the static guard).
    cudaStream_t stream() const { return cudaStreamLegacy; }
    nlohmann::json device_json() const;
    size_t l2_bytes() const { return l2_bytes_; }

    // One call of kp_forward, checked: return code, launch errors, completion within the timeout.
    void call(const KernelLibrary& library, const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs,
              const std::string& phase);
    // One call of kp_forward queued without waiting (energy windows); return code and launch checked.
    void enqueue(const KernelLibrary& library, const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs,
                 const std::string& phase);
    // One cold sample: flush L2 (flush_l2), then time one call from where `start` says.
    ColdSample timed_call(const KernelLibrary& library, const std::vector<kp_tensor>& inputs,
                          std::vector<kp_tensor>& outputs, const std::string& phase, TimedStart start = TimedStart::Queued);

    // Waits for everything queued so far, polling so a hung kernel becomes a Timeout failure.
    void wait_all(const std::string& phase);

    // Evicts every L2 line (writes twice its size), drops the flush's own lines without write-back
    // and resets persisting L2; queued on the harness stream.
    void flush_l2();

private:
    void wait_event(cudaEvent_t event, const std::string& phase);

    double call_timeout_seconds_;
    cudaDeviceProp properties_{};
    size_t l2_bytes_ = 0;
    void* flush_buffer_ = nullptr;
    size_t flush_bytes_ = 0;
    unsigned flush_round_ = 0;
    cudaEvent_t start_ = nullptr, stop_ = nullptr, done_ = nullptr;
    // Host-mapped release word of the queued start ([0] released by the host, [1] timed out).
    volatile unsigned* gate_host_ = nullptr;
    volatile unsigned* gate_device_ = nullptr;
    gpu::ClockMonitor clock_monitor_;  // NVML for this GPU, found by its PCI bus id
};

}  // namespace kp::worker
