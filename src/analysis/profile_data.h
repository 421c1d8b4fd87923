// Everything the collectors gathered about one kernel, each part optional: the analysis runs on
// whatever is present, and each tool says what it needs.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "analysis/device_ceilings.h"
#include "profile/kernel_metrics.h"
#include "profile/ncu_source_page.h"
#include "profile/ptxas_report.h"
#include "profile/sass_program.h"
#include "profile/sass_summary.h"

namespace kp::analysis {

enum class FlopPrecision { fp32, fp64, fp16, bf16_tensor, tf32_tensor, fp8_tensor };

// What the task needs at minimum, from its definition (e.g. 2*N^3 FLOP and 3*N*N*4 bytes for an
// FP32 GEMM). Gives the floor time and lets tools compare traffic with the necessary traffic.
struct TaskBounds {
    std::optional<double> min_flops;
    std::optional<double> min_bytes;
    FlopPrecision precision = FlopPrecision::fp32;
};

struct OccupancyInfo {
    int block_size = 0;
    int registers_per_thread = 0;
    double shared_bytes_per_block = 0;
    // Resident blocks per SM allowed by each resource ("registers", "shared_memory", "warps", "blocks").
    std::map<std::string, double> block_limits;
    double theoretical_warps_per_sm = 0;
    double max_warps_per_sm = 64;
    std::optional<double> achieved_warps_per_sm;
    // Where the limits come from: "driver" (the CUDA occupancy calculation for the real launch, as
    // ncu reports it in launch__occupancy_limit_*) or "calculator" (kp::gpu::compute_occupancy).
    std::string source;

    std::string limiter() const;  // the resource with the smallest block limit
};

// From a CUPTI activity timeline of the candidate's run (or nsys).
struct TimelineSummary {
    int kernel_launches = 0;
    double kernel_seconds = 0;       // sum of kernel durations
    double span_seconds = 0;         // first kernel start to last kernel end
    double median_kernel_seconds = 0;
    double mean_launch_latency_seconds = 0;  // API call to kernel start
    int memcpy_count = 0;
    double memcpy_seconds = 0;
    int host_synchronizations = 0;
};

struct ProfileData {
    std::string kernel_name;
    std::optional<profile::KernelMetrics> metrics;
    std::optional<profile::SassSummary> sass;
    std::optional<profile::SassFunction> sass_function;  // for citing instructions and lines
    std::optional<profile::PtxasFunction> ptxas;
    std::optional<OccupancyInfo> occupancy;
    std::optional<TimelineSummary> timeline;
    std::optional<profile::SourcePage> source;
    DeviceCeilings ceilings = h200_datasheet_ceilings();
    TaskBounds task;
};

// Occupancy from ncu's launch__* metrics (launch__occupancy_limit_*, registers, block size).
std::optional<OccupancyInfo> occupancy_from_metrics(const profile::KernelMetrics& metrics, const DeviceCeilings& ceilings);

}  // namespace kp::analysis
