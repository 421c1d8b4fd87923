// The CUPTI activity timeline written by libkp_timeline.so (src/gpu/timeline/), parsed back into
// value types, and its summary: kernels per call, durations, launch gaps, launch overhead,
// memcpy/memset totals and host synchronization time. GPU-free, so it is tested on CI.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"

namespace kp::gpu {

struct TimelineKernel {
    std::string name;  // as CUPTI reports it (mangled for C++ kernels)
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint32_t device = 0, context = 0, stream = 0, correlation_id = 0;
    int grid[3] = {0, 0, 0};
    int block[3] = {0, 0, 0};
    int registers_per_thread = 0;
    int static_shared_bytes = 0;
    int dynamic_shared_bytes = 0;
    std::uint32_t local_bytes_per_thread = 0;
    std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct TimelineMemcpy {
    std::string kind;  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP" ...
    std::uint64_t bytes = 0;
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint32_t stream = 0, correlation_id = 0;
    std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct TimelineMemset {
    std::uint64_t bytes = 0;
    std::uint32_t value = 0;
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint32_t stream = 0, correlation_id = 0;
    std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct TimelineApiCall {
    std::string name;  // "cudaLaunchKernel"
    std::uint32_t callback_id = 0;
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint32_t correlation_id = 0, thread_id = 0;
    std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct TimelineSynchronization {
    std::string type;  // "event_synchronize", "stream_wait_event", "stream_synchronize", "context_synchronize"
    std::uint64_t start_ns = 0, end_ns = 0;
    std::uint32_t stream = 0, correlation_id = 0;
    std::uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct Timeline {
    std::vector<TimelineKernel> kernels;
    std::vector<TimelineMemcpy> memcpys;
    std::vector<TimelineMemset> memsets;
    std::vector<TimelineApiCall> runtime_api;
    std::vector<TimelineSynchronization> synchronizations;
    std::uint64_t dropped_records = 0;
};

Result<Timeline> parse_timeline_json(const std::string& text);

// count, total, mean, median, min, max of a list of nanosecond durations.
struct DurationStats {
    std::size_t count = 0;
    std::uint64_t total_ns = 0;
    double mean_ns = 0;
    double median_ns = 0;
    std::uint64_t min_ns = 0;
    std::uint64_t max_ns = 0;
    static DurationStats of(std::vector<std::uint64_t> values);
};

struct KernelSummary {
    std::string name;
    double launches_per_call = 0;
    DurationStats duration;
};

struct TransferSummary {
    std::size_t count = 0;
    std::uint64_t bytes = 0;
    std::uint64_t total_ns = 0;
};

struct TimelineSummary {
    int calls = 1;
    std::size_t kernel_launches = 0;
    double kernels_per_call = 0;
    std::vector<KernelSummary> kernels;  // by total time, longest first
    DurationStats kernel_duration;       // all kernels together
    // Idle time between consecutive kernels of one stream: next start - previous end.
    DurationStats launch_gaps;
    // Kernel start - start of the runtime call that launched it (joined by correlation id).
    DurationStats launch_overhead;
    std::map<std::string, TransferSummary> memcpy_by_kind;
    TransferSummary memcpy_total;
    TransferSummary memset_total;
    // Time the host spent blocked in cuda*Synchronize calls (runtime API records).
    std::uint64_t host_synchronization_ns = 0;
    std::size_t host_synchronization_calls = 0;
    // First kernel start to last kernel end, and the share of it with a kernel running.
    std::uint64_t gpu_span_ns = 0;
    double kernel_busy_fraction = 0;
    std::uint64_t dropped_records = 0;

    // Per call of the measured operation, as the tools judge it.
    int launches_per_call() const;                   // kernels_per_call, rounded
    double kernel_seconds_per_call() const;          // sum of kernel durations
    double span_seconds_per_call() const;            // first kernel start to last kernel end
    double memcpy_seconds_per_call() const;
    int host_synchronizations_per_call() const;
    double median_kernel_seconds() const { return kernel_duration.median_ns * 1e-9; }
    double mean_launch_latency_seconds() const { return launch_overhead.mean_ns * 1e-9; }  // API call to kernel start
};

// `calls`: how many times the measured operation ran in the trace (for per-call counts).
TimelineSummary summarize_timeline(const Timeline& timeline, int calls = 1);

void to_json(nlohmann::json& j, const DurationStats& s);
void to_json(nlohmann::json& j, const TimelineSummary& s);

}  // namespace kp::gpu
