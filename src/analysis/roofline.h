// Stage 1: place the kernel on the roofline from about twenty raw counters (no composite
// *__throughput metrics, which cost 5-8 replay passes each), and classify it as memory-bound,
// compute-bound, latency-bound or balanced. Stage 2 picks its tools by this class.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/profile_data.h"
#include "common/result.h"

namespace kp::analysis {

enum class RooflineClass { memory_bound, compute_bound, latency_bound, balanced };
std::string_view to_string(RooflineClass value);
std::vector<RooflineClass> all_roofline_classes();

struct FlopCounts {
    double fp32 = 0, fp64 = 0, fp16 = 0, tensor = 0;
    double total() const { return fp32 + fp64 + fp16 + tensor; }
};

struct RooflineResult {
    RooflineClass kind = RooflineClass::latency_bound;
    std::string bound_unit;  // the busiest unit: "DRAM", "L2", "L1", "FP32", "FP64", "FP16", "tensor"
    std::string reason;      // one sentence: which fractions decided the class

    double duration_seconds = 0;
    double sm_clock_hz = 0;
    FlopCounts flops;
    double dram_bytes = 0, l2_bytes = 0, l1_bytes = 0;

    double achieved_flops_per_second = 0;
    double dram_bytes_per_second = 0;
    double arithmetic_intensity = 0;  // FLOP per DRAM byte

    // Fractions of speed of light (0..1+) for each unit, against clock-scaled ceilings.
    double dram_sol = 0, l2_sol = 0, l1_sol = 0, fp32_sol = 0, fp64_sol = 0, fp16_sol = 0, tensor_sol = 0;
    double memory_sol = 0;   // max of dram, l2, l1
    double compute_sol = 0;  // max of the math pipes
    std::optional<double> waves;  // launch__waves_per_multiprocessor when present

    // From the task's minimal FLOPs and bytes: the time an ideal kernel would need.
    std::optional<double> floor_seconds;
    std::optional<double> fraction_of_floor;  // floor / duration: 1.0 = at the roofline
};

// The raw counters stage 1 reads (one ncu --metrics list; about 2-3 replay passes).
const std::vector<std::string>& roofline_metric_names();

// Thresholds, shared with tools that reason about "busy".
inline constexpr double kBoundThreshold = 0.60;  // ncu SOLBottleneck: both units below 60% -> latency issue
inline constexpr double kBalancedGap = 0.10;     // ncu SOLBottleneck: units within 10 points -> balanced

Result<RooflineResult> classify_roofline(const ProfileData& data);

}  // namespace kp::analysis
