#include "eval/roofline_floor.h"

namespace kp {

double PeakRates::flops_for(const std::string& precision) const {
    if (precision == "f64") return f64_flops;
    if (precision == "f16") return f16_tensor_flops;
    if (precision == "bf16") return bf16_tensor_flops;
    if (precision == "tf32") return tf32_tensor_flops;
    return f32_flops;
}

PeakRates h200_datasheet_peaks() {
    // 4.8 TB/s HBM3e; 66.9 TFLOP/s FP32 and 66.9 FP64 tensor at 1.98 GHz; dense tensor rates at 1.98 GHz.
    return {"datasheet H200", 4.8e12, 66.9e12, 66.9e12, 1071e12, 1071e12, 535e12};
}

nlohmann::json RooflineFloor::to_json() const {
    return {{"memory_seconds", memory_seconds}, {"compute_seconds", compute_seconds}, {"floor_seconds", seconds()},
            {"bound", memory_seconds >= compute_seconds ? "memory" : "compute"}};
}

RooflineFloor roofline_floor(const TaskSpec& task, const PeakRates& peaks) {
    RooflineFloor f;
    f.memory_seconds = task.cost.bytes / peaks.dram_bytes_per_second;
    f.compute_seconds = task.cost.flops / peaks.flops_for(task.cost.precision);
    return f;
}

}  // namespace kp
