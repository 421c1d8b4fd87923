// Writes a TaskSpec back as task.toml (docs/task-format.md), with paths relative to the task's
// folder: used by `kernelpro import`, whose tasks must load again with load_task unchanged.
#pragma once

#include <string>

#include "task/task_spec.h"

namespace kp {

std::string task_to_toml(const TaskSpec& task);

}  // namespace kp
