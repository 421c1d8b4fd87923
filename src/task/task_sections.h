// The task.toml sections of imported tasks (docs/task-format.md): a live PyTorch reference, the
// task's flags, and where it came from. Internal to src/task: load_task calls these.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "task/task_spec.h"
#include "task/toml_fields.h"

namespace kp::task_toml {

using task_fields::Problems;

// [reference] pytorch = "problem.py", forward_inputs, dtype, tf32, seed.
std::optional<PytorchReference> parse_pytorch_reference(const toml::table& reference, const std::filesystem::path& task_dir,
                                                        size_t input_count, Problems& problems);

// flags = ["degenerate"]: only known flags.
std::vector<std::string> parse_flags(const toml::node* node, Problems& problems);

// [origin] benchmark, level, problem, file, notes.
std::optional<TaskOrigin> parse_origin(const toml::node* node, Problems& problems);

}  // namespace kp::task_toml
