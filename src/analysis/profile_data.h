// Everything the collectors gathered about one kernel, each part optional: the analysis runs on
// whatever is present, and each tool says what it needs. The device model (ceilings, occupancy,
// the timeline summary) is kp_gpu's, used here as is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/ceilings.h"
#include "gpu/occupancy.h"
#include "gpu/timeline.h"
#include "profile/kernel_metrics.h"
#include "profile/ncu_source_page.h"
#include "profile/pc_samples.h"
#include "profile/ptxas_report.h"
#include "profile/sass_program.h"
#include "profile/sass_summary.h"

namespace kp::analysis {

using gpu::FlopPrecision;

// What the task needs at minimum, from its definition (e.g. 2*N^3 FLOP and 3*N*N*4 bytes for an
// FP32 GEMM). Gives the floor time and lets tools compare traffic with the necessary traffic.
struct TaskBounds {
    std::optional<double> min_flops;
    std::optional<double> min_bytes;
    FlopPrecision precision = FlopPrecision::fp32;
};

struct ProfileData {
    std::string kernel_name;
    std::optional<profile::KernelMetrics> metrics;
    std::optional<profile::SassSummary> sass;
    std::optional<profile::SassFunction> sass_function;  // for citing instructions and lines
    std::optional<profile::PtxasFunction> ptxas;
    std::optional<gpu::Occupancy> occupancy;
    std::optional<gpu::TimelineSummary> timeline;         // from a CUPTI activity trace of the call
    std::optional<profile::SourcePage> source;
    // CUPTI PC sampling of the kernel by source line (stall reasons per line), and the candidate's
    // source text, so findings can quote the lines behind their cost (line_evidence.h).
    std::optional<profile::KernelLineSamples> line_samples;
    std::vector<std::string> source_text;  // line N is source_text[N - 1]
    std::string source_name;               // how findings name that file (the user's path)
    // What the GPU can do, with its limits; empty (not known()) when there are no ceilings for it,
    // and then the roofline cannot be placed.
    gpu::DeviceCeilings ceilings;
    TaskBounds task;
};

// Occupancy from ncu's launch__* metrics: the driver's per-resource block limits
// (launch__occupancy_limit_*), registers, block size; source "driver" when those limits are there.
std::optional<gpu::Occupancy> occupancy_from_metrics(const profile::KernelMetrics& metrics, const gpu::DeviceCeilings& ceilings);

}  // namespace kp::analysis
