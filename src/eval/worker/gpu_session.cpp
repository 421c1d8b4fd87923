#include "eval/worker/gpu_session.h"

#include <atomic>
#include <thread>

#include "common/stopwatch.h"
#include "eval/worker/device_ops.h"
#include "eval/worker/launch_gate_client.h"
#include "gpu/device_info.h"
#include "eval/worker/worker_failure.h"

namespace kp::worker {

namespace {
using Clock = std::chrono::steady_clock;
// How long a queued start holds the stream at most: far above any kp_forward's host time (tens of
// microseconds), short enough that a call that waits on the GPU inside kp_forward loses little.
constexpr double kHoldSeconds = 0.05;
}  // namespace

GpuSession::GpuSession(double call_timeout_seconds) : call_timeout_seconds_(call_timeout_seconds) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        throw WorkerFailure(FailureClass::Crash, std::string("no usable GPU: ") + cudaGetErrorString(e), "init");
    check_cuda(cudaSetDevice(0), "cudaSetDevice");
    check_cuda(cudaGetDeviceProperties(&properties_, 0), "cudaGetDeviceProperties");
    char pci_bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, 0) == cudaSuccess) clock_monitor_ = gpu::ClockMonitor::open(pci_bus_id);
    l2_bytes_ = static_cast<size_t>(properties_.l2CacheSize);
    // Persisting L2 carve-out to zero: no access-policy window can keep data resident across samples.
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    flush_bytes_ = std::max<size_t>(2 * l2_bytes_, 64u << 20);
    check_cuda(cudaMalloc(&flush_buffer_, flush_bytes_), "allocating the L2 flush buffer");
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming), "cudaEventCreate");
    void* gate = nullptr;
    check_cuda(cudaHostAlloc(&gate, 2 * sizeof(unsigned), cudaHostAllocMapped), "allocating the timing gate");
    void* gate_device = nullptr;
    check_cuda(cudaHostGetDevicePointer(&gate_device, gate, 0), "mapping the timing gate");
    gate_host_ = static_cast<volatile unsigned*>(gate);
    gate_device_ = static_cast<volatile unsigned*>(gate_device);
}

GpuSession::~GpuSession() {
    // Nothing to release by hand: the worker exits right after, and the driver reclaims the context.
}

nlohmann::json GpuSession::device_json() const {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    // The UUID as nvidia-smi and CUDA_VISIBLE_DEVICES write it: what a pool records per evaluation.
    unsigned char bytes[16];
    for (int i = 0; i < 16; ++i) bytes[i] = static_cast<unsigned char>(properties_.uuid.bytes[i]);
    const std::string uuid = gpu::format_gpu_uuid(bytes);
    char pci_bus_id[32] = {};
    cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, 0);
    return {{"name", properties_.name},
            {"uuid", uuid},
            {"pci_bus_id", pci_bus_id},
            {"compute_capability", std::to_string(properties_.major) + "." + std::to_string(properties_.minor)},
            {"sm_count", properties_.multiProcessorCount},
            {"l2_bytes", l2_bytes_},
            {"memory_bytes", properties_.totalGlobalMem},
            {"cuda_driver_version", driver},
            {"cuda_runtime_version", runtime},
            {"driver_version", clock_monitor_.driver_version()},
            {"nvml", clock_monitor_.available()}};
}

// Polls without pause for the first millisecond (the host clock of a short call stays exact),
// then every 50 us: a long call is no longer polled a thousand times a millisecond (a traced 118 ms
// call left 119k cudaEventQuery records, a second of the profile), and the pause stays far inside
// the timing's host slack (1.5x the event time + 300 us).
constexpr double kSpinSeconds = 1e-3;
constexpr auto kPollPause = std::chrono::microseconds(50);

void GpuSession::wait_event(cudaEvent_t event, const std::string& phase) {
    auto start = Clock::now();
    for (;;) {
        cudaError_t e = cudaEventQuery(event);
        if (e == cudaSuccess) return;
        if (e != cudaErrorNotReady) check_cuda(e, phase + ": kernel failed");
        const double waited = seconds_since(start);
        if (waited > call_timeout_seconds_)
            throw WorkerFailure(FailureClass::Timeout,
                                phase + ": the call did not finish within " + std::to_string(call_timeout_seconds_) + " s",
                                phase);
        if (waited > kSpinSeconds) std::this_thread::sleep_for(kPollPause);
    }
}

void GpuSession::wait_all(const std::string& phase) {
    check_cuda(cudaEventRecord(done_, stream()), phase + ": cudaEventRecord");
    wait_event(done_, phase);
    // The legacy stream already waited for other blocking streams; this also covers the rest.
    check_cuda(cudaDeviceSynchronize(), phase + ": kernel failed");
}

namespace {
// What kp_forward's return code and the launch error say about the call, as a failure.
void check_forward(const KernelLibrary& library, int rc, cudaError_t launch, const std::string& phase) {
    // A launch the gate refused decides, whatever the candidate made of its cudaErrorNotPermitted.
    if (std::string refused = launch_gate_refusal(); !refused.empty())
        throw WorkerFailure(FailureClass::RejectedByGuard, phase + ": " + library.role() + ": " + refused, phase);
    std::string why = rc != 0 ? library.error_text() : "";
    if (launch != cudaSuccess)
        throw WorkerFailure(classify_cuda_error(launch),
                            phase + ": " + library.role() + " launch failed: " + cudaGetErrorName(launch) + " (" +
                                cudaGetErrorString(launch) + ")", phase);
    if (rc != 0)
        throw WorkerFailure(FailureClass::Crash,
                            phase + ": " + library.role() + " kp_forward returned " + std::to_string(rc) + (why.empty() ? "" : ": " + why),
                            phase);
}

// A trusted library's untimed second half (the PyTorch bridge copies its result into the outputs).
void finish_call(const KernelLibrary& library, std::vector<kp_tensor>& outputs, cudaStream_t stream, const std::string& phase) {
    if (int rc = library.finish(outputs, stream); rc != 0)
        throw WorkerFailure(FailureClass::Crash, phase + ": " + library.role() + " could not deliver its outputs: " + library.error_text(),
                            phase);
}
}  // namespace

void GpuSession::enqueue(const KernelLibrary& library, const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs,
                         const std::string& phase) {
    int rc = library.forward(inputs, outputs, stream());
    check_forward(library, rc, cudaGetLastError(), phase);
    finish_call(library, outputs, stream(), phase);
}

void GpuSession::call(const KernelLibrary& library, const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs,
                      const std::string& phase) {
    enqueue(library, inputs, outputs, phase);
    wait_all(phase);
}

void GpuSession::flush_l2() {
    // Writing (not reading) twice the L2 size evicts every line the previous call left behind; the
    // value changes each round so no compression or zero-page shortcut applies.
    check_cuda(cudaMemsetAsync(flush_buffer_, static_cast<int>(++flush_round_ & 0xff), flush_bytes_, stream()), "L2 flush");
    // The write leaves L2 full of dirty lines of the flush buffer; the timed kernel would pay their
    // write-back. They are marked evict-first and then discarded (no write-back). What each step
    // was worth on the H200 (docs/benchmarks.md, 2026-12-03 and 12-04): re-reading half of the
    // written region instead left enough dirty lines that a read-only kernel ran 9% slower
    // (sum_reduce 271 -> 249 us); the discard alone left kernels that write at full DRAM bandwidth
    // 4-5% above ncu's own flush (softmax 269.5 us against 258 us) with the same DRAM bytes moved;
    // marking the lines evict-first before the discard halves that (264.7 us). A larger write, a
    // flush written by a kernel with evict-last or evict-normal stores, and a 2 ms pause after the
    // discard changed nothing. The worker is built for sm_80 and later, which have both.
    check_cuda(mark_l2_lines_evict_first(flush_buffer_, flush_bytes_, stream()), "L2 evict-first");
    check_cuda(discard_l2_lines(flush_buffer_, flush_bytes_, stream()), "L2 discard");
    cudaCtxResetPersistingL2Cache();
}

ColdSample GpuSession::timed_call(const KernelLibrary& library, const std::vector<kp_tensor>& inputs,
                                  std::vector<kp_tensor>& outputs, const std::string& phase, TimedStart start) {
    flush_l2();
    wait_all(phase + " (flush)");
    ColdSample sample;
    const bool queued = start == TimedStart::Queued;
    if (queued) {
        gate_host_[0] = 0;
        gate_host_[1] = 0;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        check_cuda(hold_stream(gate_device_, kHoldSeconds, stream()), phase + ": holding the stream");
    }
    // The host clock starts before kp_forward in both modes: host work inside it that the queued
    // interval does not see still counts against the host-clock check.
    auto host_start = Clock::now();
    check_cuda(cudaEventRecord(start_, stream()), "cudaEventRecord");
    int rc = library.forward(inputs, outputs, stream());
    cudaError_t launch = cudaGetLastError();
    check_cuda(cudaEventRecord(stop_, stream()), "cudaEventRecord");
    if (queued) {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        gate_host_[0] = 1;
    }
    check_forward(library, rc, launch, phase);
    finish_call(library, outputs, stream(), phase);  // after the stop event: not timed
    wait_event(stop_, phase);
    check_cuda(cudaDeviceSynchronize(), phase + ": kernel failed");
    sample.host_seconds = seconds_since(host_start);
    const auto clock = clock_monitor_.read();
    sample.sm_clock_mhz = clock.sm_clock_mhz;
    sample.throttled = clock.throttled;
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    sample.event_seconds = ms * 1e-3;
    if (queued) sample.hold_timed_out = gate_host_[1] != 0;
    return sample;
}

}  // namespace kp::worker
