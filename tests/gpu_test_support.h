// For tests that need a GPU: the reason to skip when there is none, so CI shows them as skipped
// (with the reason), never as passed.
#pragma once

#include <dlfcn.h>

#include <optional>
#include <string>

namespace kp::testing {

inline std::optional<std::string> no_gpu_reason() {
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) return std::string("no GPU: libcuda.so.1 not found (GPU tests run through scripts/gpu-check on the device)");
    auto init = reinterpret_cast<int (*)(unsigned)>(::dlsym(cuda, "cuInit"));
    auto count = reinterpret_cast<int (*)(int*)>(::dlsym(cuda, "cuDeviceGetCount"));
    int n = 0;
    if (!init || !count || init(0) != 0 || count(&n) != 0 || n == 0)
        return std::string("no GPU: the CUDA driver reports no device");
    return std::nullopt;
}

}  // namespace kp::testing

#define KP_SKIP_WITHOUT_GPU()                                              \
    do {                                                                   \
        if (auto reason = ::kp::testing::no_gpu_reason()) GTEST_SKIP() << *reason; \
    } while (0)
