// The plausibility floor: no correct kernel can finish faster than its minimal bytes at peak memory
// bandwidth or its minimal FLOPs at peak arithmetic rate. A time under the floor means the timing
// missed work (or the task's declared cost is wrong), so it is never recorded as a speedup.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "task/task_spec.h"

namespace kp {

struct PeakRates {
    std::string source;            // "datasheet H200" or "measured"
    double dram_bytes_per_second;  // peak, not achieved: the floor must never exceed a real kernel's time
    double f32_flops, f64_flops, f16_tensor_flops, bf16_tensor_flops, tf32_tensor_flops;
    double flops_for(const std::string& precision) const;
};

// Datasheet peaks of the H200 SXM (docs/device.md, "H200 SXM reference figures"), with the boost
// clock, so they are upper bounds on what any kernel achieves.
PeakRates h200_datasheet_peaks();

struct RooflineFloor {
    double memory_seconds = 0, compute_seconds = 0;
    double seconds() const { return std::max(memory_seconds, compute_seconds); }
    nlohmann::json to_json() const;
};

RooflineFloor roofline_floor(const TaskSpec& task, const PeakRates& peaks);

}  // namespace kp
