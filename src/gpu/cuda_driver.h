// The CUDA driver API, loaded at run time from libcuda.so.1: only the entry points kernelpro needs to
// describe the GPUs. Nothing here creates a context, so it is cheap and safe to call from the CLI.
#pragma once

#include <vector>

#include "common/result.h"
#include "gpu/device_info.h"
#include "gpu/dynamic_library.h"

namespace kp::gpu {

class CudaDriver {
public:
    // Loads libcuda.so.1 and calls cuInit(0). Errors start with "no GPU:" when the machine has no
    // usable GPU (library absent, the toolkit's stub, no device), so callers can print them as is.
    static Result<CudaDriver> load();

    int driver_version() const { return driver_version_; }  // e.g. 13000
    Result<int> device_count() const;
    Result<DeviceInfo> device_info(int ordinal) const;
    Result<std::vector<DeviceInfo>> all_devices() const;

    // "CUDA_ERROR_NO_DEVICE (100)" style text for a CUresult.
    std::string describe(int result) const;

private:
    struct EntryPoints;
    DynamicLibrary library_;
    std::shared_ptr<const EntryPoints> api_;
    int driver_version_ = 0;
};

}  // namespace kp::gpu
