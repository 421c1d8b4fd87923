// `kernelpro kernelbench export`: a kernelpro candidate as KernelBench's ModelNew, which
// KernelBench's eval_kernel_against_ref accepts unchanged. The file subclasses the original Model
// (the problem's source is embedded, so the constructor, its parameters and their seeded init are
// the same), builds the kernel with torch.utils.cpp_extension.load_inline (the candidate and the
// ABI header in the .cu, a thin C++ wrapper in the .cpp), and its forward passes the inputs and the
// module's own parameters and buffers (by state_dict name, in the task's order) to kp_forward on
// PyTorch's current stream, into outputs it allocates with the task's shapes.
#pragma once

#include <string>

#include "common/result.h"
#include "task/task_spec.h"

namespace kp::kernelbench {

struct ExportInput {
    const TaskSpec* task = nullptr;  // must have a PyTorch reference (an imported task)
    std::string kernel_source;       // the candidate, tunable values already written in as #defines
    std::string abi_header;          // include/kernelpro/abi.h
    std::string problem_source;      // the task's problem.py
};

Result<std::string> model_new_source(const ExportInput& input);

// A Python string literal holding `text` exactly (raw triple quotes when that is safe).
std::string python_string_literal(const std::string& text);

}  // namespace kp::kernelbench
