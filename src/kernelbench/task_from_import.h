// What the Python importer found about one problem (python/kernelpro_torch/importer.py), turned
// into a kernelpro task: forward inputs with their distributions, then every parameter and buffer
// by its state_dict name (fixed values from parameters.safetensors), the outputs, KernelBench's
// tolerance for the precision on floating outputs, the roofline cost, the PyTorch reference and
// its TF32 policy (off: the reference computes in full fp32), the flags and where it came from.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "task/task_spec.h"

namespace kp::kernelbench {

struct TaskNaming {
    std::string name;         // [A-Za-z0-9_-]+
    std::string description;  // one line
    TaskOrigin origin;        // benchmark, level, problem, file (notes are added from the facts)
};

// `facts` is one converted result line; `task_dir` holds problem.py and parameters.safetensors.
Result<TaskSpec> task_from_import(const nlohmann::json& facts, const std::filesystem::path& task_dir, const TaskNaming& naming);

// A task name from a problem file: "19_ReLU.py" -> "kb_l1_019_ReLU" (with a level) or "ReLU_19"
// style kept as the sanitized stem (without); "_bf16"/"_fp16" appended for those precisions.
std::string task_name_for(const std::filesystem::path& problem_file, int level, int problem, const std::string& precision);

}  // namespace kp::kernelbench
