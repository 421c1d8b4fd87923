#include "kernelbench/model_new_export.h"

#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/hash.h"

namespace kp::kernelbench {

namespace {

const char* torch_dtype(DType d) {
    switch (d) {
        case DType::F32: return "torch.float32";
        case DType::F16: return "torch.float16";
        case DType::BF16: return "torch.bfloat16";
        case DType::F64: return "torch.float64";
        case DType::I32: return "torch.int32";
        case DType::I64: return "torch.int64";
        case DType::U8: return "torch.uint8";
        case DType::Bool: return "torch.bool";
    }
    return "torch.float32";
}

// The .cpp half: torch tensors to kp_tensor views, kp_forward on the current stream.
const char* kWrapper = R"(
#include <ATen/cuda/CUDAContext.h>

static kp_tensor kp_view(const torch::Tensor& t) {
    kp_tensor v{};
    v.data = t.data_ptr();
    switch (t.scalar_type()) {
        case at::kFloat: v.dtype = KP_F32; break;
        case at::kHalf: v.dtype = KP_F16; break;
        case at::kBFloat16: v.dtype = KP_BF16; break;
        case at::kDouble: v.dtype = KP_F64; break;
        case at::kInt: v.dtype = KP_I32; break;
        case at::kLong: v.dtype = KP_I64; break;
        case at::kByte: v.dtype = KP_U8; break;
        case at::kBool: v.dtype = KP_BOOL; break;
        default: TORCH_CHECK(false, "kernelpro: unsupported dtype ", t.scalar_type());
    }
    TORCH_CHECK(t.dim() <= KP_MAX_DIMS, "kernelpro: too many dimensions");
    v.ndim = static_cast<int>(t.dim());
    for (int i = 0; i < v.ndim; ++i) {
        v.shape[i] = t.size(i);
        v.stride[i] = t.stride(i);
    }
    return v;
}

std::vector<torch::Tensor> kp_call(std::vector<torch::Tensor> inputs, std::vector<torch::Tensor> outputs) {
    std::vector<kp_tensor> in, out;
    for (const auto& t : inputs) in.push_back(kp_view(t));
    for (const auto& t : outputs) out.push_back(kp_view(t));
    static bool set_up = false;
    if (!set_up) {
        set_up = true;
        KP_CALL_SETUP
    }
    int rc = kp_forward(in.data(), static_cast<int>(in.size()), out.data(), static_cast<int>(out.size()),
                        at::cuda::getCurrentCUDAStream().stream());
    TORCH_CHECK(rc == 0, "kernelpro: kp_forward returned ", rc);
    return outputs;
}
)";

const char* kSetupCall = R"(std::vector<kp_tensor> in0 = in, out0 = out;
        for (auto& v : in0) v.data = nullptr;
        for (auto& v : out0) v.data = nullptr;
        int setup_rc = kp_setup(in0.data(), static_cast<int>(in0.size()), out0.data(), static_cast<int>(out0.size()));
        TORCH_CHECK(setup_rc == 0, "kernelpro: kp_setup returned ", setup_rc);)";

// The candidate with its #include of the ABI header replaced by the header itself, after undoing
// the half-precision macros torch's extension build defines (kernelpro compiled the kernel without
// them, and they turn off __half operators).
std::string self_contained_kernel(const std::string& kernel, const std::string& abi) {
    static const std::regex include_abi(R"([ \t]*#[ \t]*include[ \t]*[<"](kernelpro/)?abi\.h[>"].*)");
    std::string out =
        "#undef __CUDA_NO_HALF_OPERATORS__\n#undef __CUDA_NO_HALF_CONVERSIONS__\n#undef __CUDA_NO_BFLOAT16_CONVERSIONS__\n"
        "#undef __CUDA_NO_HALF2_OPERATORS__\n" + abi + "\n";
    std::istringstream lines(kernel);
    for (std::string line; std::getline(lines, line);)
        out += (std::regex_match(line, include_abi) ? "// (kernelpro/abi.h: inlined above)" : line) + "\n";
    return out;
}

std::string python_list(const std::vector<std::string>& items) {
    std::string text = "[";
    for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
    return text + "]";
}

}  // namespace

std::string python_string_literal(const std::string& text) {
    bool raw_ok = text.find("'''") == std::string::npos && (text.empty() || text.back() != '\\') && text.find('\r') == std::string::npos;
    if (raw_ok) return "r'''" + text + "'''";
    return nlohmann::json(text).dump();  // JSON string escapes are valid Python
}

Result<std::string> model_new_source(const ExportInput& in) {
    if (!in.task || !in.task->reference.pytorch)
        return make_error("export needs an imported task (one with [reference] pytorch = ...), so ModelNew can subclass its Model");
    const TaskSpec& task = *in.task;
    const int forward_inputs = task.reference.pytorch->forward_inputs;
    if (in.kernel_source.find("kp_forward") == std::string::npos) return make_error("the kernel defines no kp_forward");
    // load_inline would need the CUTLASS include folders and flags (docs/cutlass.md) in the module.
    if (task.allows_library("cutlass")) return make_error("tasks that allow cutlass cannot be exported as ModelNew yet");
    std::vector<std::string> parameters, outputs, arguments;
    for (size_t i = 0; i < task.inputs.size(); ++i) {
        const auto& t = task.inputs[i];
        if (static_cast<int>(i) < forward_inputs) arguments.push_back(fmt::format("({}, {})", nlohmann::json(t.shape).dump(), torch_dtype(t.dtype)));
        else parameters.push_back(nlohmann::json(t.name).dump());
    }
    for (const auto& t : task.outputs) outputs.push_back(fmt::format("({}, {})", nlohmann::json(t.shape).dump(), torch_dtype(t.dtype)));
    static const std::regex defines_setup(R"(\bkp_setup\s*\()");
    std::string wrapper = kWrapper;
    wrapper.replace(wrapper.find("KP_CALL_SETUP"), 13, std::regex_search(in.kernel_source, defines_setup) ? kSetupCall : "");
    std::string ldflags;
    for (const auto& lib : task.libraries) ldflags += (ldflags.empty() ? "" : ", ") + nlohmann::json("-l" + lib).dump();
    std::string kernel = self_contained_kernel(in.kernel_source, in.abi_header);
    std::string module_name = "kp_" + task.name + "_" + sha256_hex(kernel).substr(0, 12);
    for (char& c : module_name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return fmt::format(R"py(# KernelBench ModelNew written by kernelpro for task {task} ({origin}).
# The kernel is kernelpro's candidate (the kp_forward ABI, include/kernelpro/abi.h, inlined); a thin
# C++ wrapper passes it the inputs and this module's parameters and buffers on PyTorch's current stream.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_PROBLEM_SOURCE = {problem}
_problem = {{}}
exec(compile(_PROBLEM_SOURCE, "<kernelpro: the original problem>", "exec"), _problem)

_KERNEL_SOURCE = {kernel}
_WRAPPER_SOURCE = {abi} + {wrapper}
_extension = load_inline(name="{module}", cpp_sources=_WRAPPER_SOURCE, cuda_sources=_KERNEL_SOURCE,
                         functions=["kp_call"], extra_cuda_cflags=["-O3", "-lineinfo"], extra_ldflags=[{ldflags}],
                         verbose=False)

_ARGUMENTS = {arguments}  # (shape, dtype) of forward's tensors, as the kernel was checked on them
_PARAMETERS = {parameters}  # state_dict names, in the order the kernel takes them after the arguments
_OUTPUTS = {outputs}


class ModelNew(_problem["Model"]):
    """The original Model (same constructor, same parameters), its forward done by the kernel."""

    def _apply(self, fn, *args, **kwargs):
        self._kp_state = None  # .to() / .cuda() replace buffers: look them up again
        return super()._apply(fn, *args, **kwargs)

    def _state_tensors(self):
        if getattr(self, "_kp_state", None) is None:
            named = dict(self.named_parameters())
            named.update(dict(self.named_buffers()))
            self._kp_state = [named[name] for name in _PARAMETERS]
        return self._kp_state

    def forward(self, *args):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        if len(tensors) != len(_ARGUMENTS):
            raise TypeError(f"ModelNew takes {{len(_ARGUMENTS)}} tensors, got {{len(tensors)}}")
        for t, (shape, dtype) in zip(tensors, _ARGUMENTS):
            if list(t.shape) != shape or t.dtype != dtype:
                raise TypeError(f"the kernel was built for {{dtype}} {{shape}}, got {{t.dtype}} {{list(t.shape)}}")
        device = tensors[0].device if tensors else next(self.parameters()).device
        inputs = [t.contiguous() for t in tensors] + [p.detach().contiguous() for p in self._state_tensors()]
        outputs = [torch.empty(shape, dtype=dtype, device=device) for shape, dtype in _OUTPUTS]
        _extension.kp_call(inputs, outputs)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)
)py",
                       fmt::arg("task", task.name), fmt::arg("origin", task.origin ? task.origin->file : task.name),
                       fmt::arg("problem", python_string_literal(in.problem_source)), fmt::arg("kernel", python_string_literal(kernel)),
                       fmt::arg("abi", python_string_literal(in.abi_header)), fmt::arg("wrapper", python_string_literal(wrapper)),
                       fmt::arg("module", module_name), fmt::arg("ldflags", ldflags), fmt::arg("arguments", python_list(arguments)),
                       fmt::arg("parameters", python_list(parameters)), fmt::arg("outputs", python_list(outputs)));
}

}  // namespace kp::kernelbench
