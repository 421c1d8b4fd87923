// The floors of a task on a GPU: no correct kernel can finish faster than its minimal bytes at the
// DRAM rate or its minimal FLOPs at its precision's FLOP rate. Two are kept apart:
//  - the roofline floor a candidate's fraction is measured against (it drives the search's
//    --target-fraction stop): the GPU's measured ceilings when `kernelpro device` cached them,
//    else its datasheet;
//  - the plausibility floor: a time under it cannot be real (the timing missed work, or the task's
//    declared cost is wrong), so it is never recorded as a speedup. The datasheet's peaks, which no
//    kernel exceeds; for a GPU without a datasheet, half the floor of its measured ceilings (a
//    kernel may beat a simple benchmark's rate, never by 2x).
// A GPU with neither measured ceilings nor a datasheet has no floor: the report says so.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/ceilings.h"
#include "task/task_spec.h"

namespace kp {

struct RooflineFloor {
    double memory_seconds = 0, compute_seconds = 0;
    std::string ceilings;  // where the rates come from: "measured (...)", "datasheet (...)"
    double seconds() const { return std::max(memory_seconds, compute_seconds); }
    nlohmann::json to_json() const;
};

// nullopt when the ceilings lack a rate the task needs (DRAM for its bytes, its precision's FLOP
// rate for its FLOPs).
std::optional<RooflineFloor> roofline_floor(const TaskSpec& task, const gpu::DeviceCeilings& ceilings, std::string source);

struct TaskFloors {
    std::optional<RooflineFloor> target;        // what the fraction of the roofline is measured against
    std::optional<RooflineFloor> plausibility;  // a candidate's time below it is invalid
    std::vector<std::string> notes;             // why one is missing, or how it was derived
};

// For the GPU the worker described in its hello (name, NVML and CUDA driver versions), with the
// measured ceilings looked up under `cache_root` (cache_directory()).
TaskFloors task_floors(const TaskSpec& task, const nlohmann::json& device, const std::filesystem::path& cache_root);

// What a roofline chart needs for this task, from a floor's JSON (RooflineFloor::to_json): its
// minimal FLOPs and bytes, precision, the rates the floor used and the floor, as {"flops",
// "bytes", "precision", "peak_flops_per_s", "peak_dram_bytes_per_s", "peaks_source",
// "floor_seconds"} (stored with each search evaluation, read by the report).
nlohmann::json roofline_model_json(const TaskSpec& task, const nlohmann::json& floor);

}  // namespace kp
