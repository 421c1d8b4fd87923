// One [[input]] or [[output]] table of task.toml into a TensorSpec, every problem with its line:
// names (state_dict names with dots too), dtypes, shapes (0 to 8 dimensions) whose element counts fit 64 bits and the device, strides, distributions,
// and output layouts in which no two elements share memory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <toml++/toml.h>

#include "task/task_spec.h"
#include "task/toml_fields.h"

namespace kp {

// The most bytes one tensor, and all of a task's tensors together, may need: the worker keeps
// three input sets, the outputs and the reference's outputs on the device at once, so a task whose
// tensors need more than a fifth of an H200's 141 GB cannot be evaluated.
inline constexpr int64_t kMaxTaskTensorBytes = int64_t{24} << 30;

// `task_dir` resolves the files of `fixed` distributions.
std::optional<TensorSpec> parse_tensor(const toml::table& table, const std::filesystem::path& task_dir, const std::string& field,
                                       bool is_output, task_fields::Problems& problems);

}  // namespace kp
