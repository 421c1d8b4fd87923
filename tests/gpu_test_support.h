// For tests that need a GPU: the reason to skip when there is none, so CI shows them as skipped
// (with the reason), never as passed.
#pragma once

#include <optional>
#include <string>

#include "gpu/cuda_driver.h"

namespace kp::testing {

inline std::optional<std::string> no_gpu_reason() {
    auto driver = kp::gpu::CudaDriver::load();
    if (!driver) return driver.error().message + " (GPU tests run through scripts/gpu-check on the device)";
    auto count = driver->device_count();
    if (!count || *count == 0) return std::string("no GPU: the CUDA driver reports no device");
    return std::nullopt;
}

}  // namespace kp::testing

#define KP_SKIP_WITHOUT_GPU()                                              \
    do {                                                                   \
        if (auto reason = ::kp::testing::no_gpu_reason()) GTEST_SKIP() << *reason; \
    } while (0)
