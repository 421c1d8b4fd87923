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

enum class DistributionKind { Uniform, Normal, Integer, Fixed };

struct Distribution {
    DistributionKind kind = DistributionKind::Uniform;
    double a = -1.0;  // uniform: low;  normal: mean; integer: low (inclusive)
    double b = 1.0;   // uniform: high; normal: std;  integer: high (inclusive)
    // fixed: the same values in every trial and sample (a module's parameters and buffers), read
    // from this safetensors file under the tensor's name. Absolute once loaded.
    std::filesystem::path file;
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

// A live PyTorch reference: a module in KernelBench's format, run in the worker by kernelpro's
// trusted bridge libraries (docs/kernelbench.md). It is also the `eager` baseline.
struct PytorchReference {
    std::filesystem::path source;  // the Python file (class Model, get_inputs, get_init_inputs)
    int forward_inputs = 1;        // the first N task inputs are forward()'s arguments; the rest are
                                   // the module's parameters and buffers, by state_dict name
    DType dtype = DType::F32;      // the module is cast to this (KernelBench's precision)
    bool tf32 = false;             // TF32 allowed in matmuls and cuDNN convolutions
    int64_t seed = 42;             // torch.manual_seed before get_init_inputs() and Model(...)
    // Python numbers forward() takes besides the tensors, the same in every draw of get_inputs:
    // passed by the bridge at `position` among the arguments; a kernel gets only tensors.
    struct Constant {
        std::string name;
        int position = 0;
        nlohmann::json value;  // a number or a boolean
    };
    std::vector<Constant> constants;
};

struct ReferenceSpec {
    std::optional<std::filesystem::path> source;    // reference kernel in the candidate ABI
    std::optional<std::filesystem::path> data_dir;  // set_*.safetensors with inputs and outputs
    std::optional<PytorchReference> pytorch;
};

// Where an imported task came from (kernelpro import): shown in reports, never used to evaluate.
struct TaskOrigin {
    std::string benchmark;  // "KernelBench", or "" for a user's own file
    int level = 0;
    int problem = 0;
    std::string file;                // the original file name
    std::vector<std::string> notes;  // approximations made at import, degenerate findings
};

// Task flags: "degenerate" = a constant output (all zeros, or a fixed mean) passes the tolerance.
const std::vector<std::string>& known_task_flags();

// The longest task name: it becomes part of folder names (kernelpro-out/NAME-...).
inline constexpr size_t kTaskNameMax = 64;

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
    std::vector<std::string> libraries;  // cublas, cublasLt, curand, cutlass
    std::optional<int> compile_timeout_seconds;  // [build] compile_timeout_s; absent: the builder's default
    std::vector<std::string> flags;      // known_task_flags()
    std::optional<TaskOrigin> origin;

    bool has_flag(const std::string& flag) const;
    bool allows_library(const std::string& library) const;

    // atol/rtol for one output: per-output override, else task-wide, else the dtype default.
    Tolerance tolerance_for(const TensorSpec& output) const;
    int64_t total_input_bytes() const;
    int64_t total_output_bytes() const;
};

// Libraries a task may allow, with the linker flag each one maps to ("" for cutlass: headers,
// whose flags the builder takes from the install it finds).
const std::vector<std::pair<std::string, std::string>>& allowed_libraries();

// Loads and validates a task from a directory holding task.toml (or the path of the file itself).
// On failure the message lists every problem as `task.toml:LINE: FIELD: what is wrong`.
// Never throws: an unreadable path, a symlink loop or a folder without task.toml is an error too.
Result<TaskSpec> load_task(const std::filesystem::path& directory_or_file);

// The same checks on task.toml's text; `toml_path` names the file in messages, and the folder
// that holds it is where the reference is looked up.
Result<TaskSpec> parse_task(const std::string& text, const std::filesystem::path& toml_path);

nlohmann::json to_json(const TaskSpec& task);
nlohmann::json to_json(const TensorSpec& tensor);

}  // namespace kp
