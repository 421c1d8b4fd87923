// libkp_launch_gate.so: the one way a CUTLASS candidate launches with attributes. The builder
// links every cudaLaunchKernelExC call of such a candidate here (ld --wrap), and the static guard
// refuses any other route to it. A launch whose attributes the policy admits goes to the CUDA
// runtime unchanged; a refused one is not launched: it returns cudaErrorNotPermitted and its
// reason stays here for the worker, which fails the evaluation with it (the candidate's own error
// handling cannot hide it). The worker loads this library before it loads the candidate.
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "eval/launch_gate/launch_attribute_policy.h"

namespace {
std::mutex g_mutex;
std::string g_refusal;  // the first refusal since the last kp_launch_gate_clear()
}  // namespace

extern "C" {

__attribute__((visibility("default"))) cudaError_t __wrap_cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func,
                                                                               void** args) {
    if (config != nullptr) {
        auto verdict = kp::launch_gate::judge_launch_attributes(config->attrs, config->numAttrs);
        if (!verdict.admitted) {
            std::lock_guard<std::mutex> lock(g_mutex);
            if (g_refusal.empty()) g_refusal = "launch gate: cudaLaunchKernelEx refused: " + verdict.reason;
            return cudaErrorNotPermitted;
        }
    }
    return cudaLaunchKernelExC(config, func, args);
}

// The first refusal's reason, or an empty string: the worker asks after every call.
__attribute__((visibility("default"))) const char* kp_launch_gate_refusal(void) {
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_refusal.c_str();
}

__attribute__((visibility("default"))) void kp_launch_gate_clear(void) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_refusal.clear();
}

}  // extern "C"
