#include "eval/roofline_floor.h"

#include "gpu/ceilings_cache.h"
#include "gpu/datasheets.h"

namespace kp {

namespace {
// A kernel may beat the rate a simple benchmark measured, but not by this factor.
constexpr double kMeasuredHeadroom = 2.0;
}  // namespace

nlohmann::json RooflineFloor::to_json() const {
    return {{"memory_seconds", memory_seconds}, {"compute_seconds", compute_seconds}, {"floor_seconds", seconds()},
            {"bound", memory_seconds >= compute_seconds ? "memory" : "compute"}, {"ceilings", ceilings}};
}

std::optional<RooflineFloor> roofline_floor(const TaskSpec& task, const gpu::DeviceCeilings& ceilings, std::string source) {
    const double dram = ceilings.at_reference_clock(gpu::ceiling_name::dram);
    const double flops = gpu::flops_ceiling(ceilings, gpu::flop_precision_of_task(task.cost.precision));
    if ((task.cost.bytes > 0 && dram <= 0) || (task.cost.flops > 0 && flops <= 0)) return std::nullopt;
    RooflineFloor f;
    f.memory_seconds = task.cost.bytes > 0 ? task.cost.bytes / dram : 0.0;
    f.compute_seconds = task.cost.flops > 0 ? task.cost.flops / flops : 0.0;
    f.ceilings = std::move(source);
    return f;
}

TaskFloors task_floors(const TaskSpec& task, const nlohmann::json& device, const std::filesystem::path& cache_root) {
    TaskFloors floors;
    gpu::DeviceInfo info;
    info.name = device.is_object() ? device.value("name", "") : "";
    const std::string driver = gpu::ceilings_driver_label(device.is_object() ? device.value("driver_version", "") : "",
                                                          device.is_object() ? device.value("cuda_driver_version", 0) : 0);
    auto chosen = gpu::ceilings_for_gpu(cache_root, info, driver);
    if (!chosen.ceilings) {
        floors.notes.push_back("roofline floor: " + chosen.source + "; no fraction of the roofline is reported, times are not "
                               "checked against a floor");
        return floors;
    }
    floors.target = roofline_floor(task, *chosen.ceilings, chosen.source);
    if (!floors.target) floors.notes.push_back("roofline floor: the ceilings (" + chosen.source + ") lack a rate the task's cost needs");
    if (auto datasheet = gpu::datasheet_ceilings(info)) {
        floors.plausibility = roofline_floor(task, *datasheet, "datasheet (" + datasheet->label + ")");
    } else if (floors.target) {
        floors.plausibility = *floors.target;
        floors.plausibility->memory_seconds /= kMeasuredHeadroom;
        floors.plausibility->compute_seconds /= kMeasuredHeadroom;
        floors.notes.push_back("no datasheet for " + info.name + ": implausibly fast times are checked against half the floor "
                               "of its measured ceilings");
    }
    return floors;
}

nlohmann::json roofline_model_json(const TaskSpec& task, const nlohmann::json& floor) {
    const double memory = floor.value("memory_seconds", 0.0), compute = floor.value("compute_seconds", 0.0);
    return {{"flops", task.cost.flops}, {"bytes", task.cost.bytes}, {"precision", task.cost.precision},
            {"peak_flops_per_s", compute > 0 ? task.cost.flops / compute : 0.0},
            {"peak_dram_bytes_per_s", memory > 0 ? task.cost.bytes / memory : 0.0},
            {"peaks_source", floor.value("ceilings", std::string())}, {"floor_seconds", std::max(memory, compute)}};
}

}  // namespace kp
