// A task: what a kernel must compute (inputs, outputs, tolerances), its minimal cost for the
// roofline floor, its reference, and what a candidate may link. Loaded from `task.toml`
// (docs/task-format.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "task/dtype.h"

namespace kp {

enum class DistributionKind { Uniform, Normal, Integer };

struct Distribution {
    DistributionKind kind = DistributionKind::Uniform;
    double a = -1.0;  // uniform: low;  normal: mean; integer: low (inclusive)
    double b = 1.0;   // uniform: high; normal: std;  integer: high (inclusive)
};

struct TensorSpec {
    std::string name;
    DType dtype = DType::F32;
    std::vector<int64_t> shape;
    std::vector<int64_t> stride;  // elements; filled with row-major strides when not given
    Distribution distribution;
    std::optional<double> atol, rtol;  // outputs only

    int64_t element_count() const;
    // Elements the storage must hold: 1 + the largest offset any index reaches through `stride`.
    int64_t storage_elements() const;
    int64_t storage_bytes() const { return storage_elements() * static_cast<int64_t>(dtype_size(dtype)); }
    bool is_contiguous() const;
};

struct Tolerance {
    double atol = 0.0;
    double rtol = 0.0;
};

struct CostSpec {
    double flops = 0.0;
    double bytes = 0.0;      // minimal bytes moved through DRAM
    bool bytes_auto = true;  // computed from the tensors: each input read once, each output written once
    std::string precision = "f32";  // f32 f64 f16 bf16 tf32
};

struct ReferenceSpec {
    std::optional<std::filesystem::path> source;    // reference kernel in the candidate ABI
    std::optional<std::filesystem::path> data_dir;  // set_*.safetensors with inputs and outputs
};

struct TaskSpec {
    std::filesystem::path directory;
    std::filesystem::path toml_path;
    std::string name;
    std::string description;
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> outputs;
    std::optional<Tolerance> tolerance;  // task-wide override of the per-dtype defaults
    CostSpec cost;
    ReferenceSpec reference;
    std::vector<std::string> libraries;  // cublas, cublasLt, curand

    // atol/rtol for one output: per-output override, else task-wide, else the dtype default.
    Tolerance tolerance_for(const TensorSpec& output) const;
    int64_t total_input_bytes() const;
    int64_t total_output_bytes() const;
};

// Libraries a task may allow, with the linker flag each one maps to.
const std::vector<std::pair<std::string, std::string>>& allowed_libraries();

// Loads and validates a task from a directory holding task.toml (or the path of the file itself).
// On failure the message lists every problem as `task.toml:LINE: FIELD: what is wrong`.
Result<TaskSpec> load_task(const std::filesystem::path& directory_or_file);

nlohmann::json to_json(const TaskSpec& task);
nlohmann::json to_json(const TensorSpec& tensor);

}  // namespace kp
