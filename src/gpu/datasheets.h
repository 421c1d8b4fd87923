// The public datasheet ceilings of the GPUs kernelpro knows, one table per GPU (H100 SXM, H200,
// A100 SXM4, L40S, B200), as DeviceCeilings with source "datasheet". Each rate carries the SM clock
// it is stated at where that is known, so the roofline can rescale it to the clock a kernel ran at.
// A GPU without a table has no datasheet ceilings: callers say so, they never borrow another's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpu/ceilings.h"
#include "gpu/device_info.h"

namespace kp::gpu {

// The datasheet ceilings of `device`, matched by its CUDA name ("NVIDIA H200"); nullopt when
// kernelpro has no table for it. The result's device is `device`.
std::optional<DeviceCeilings> datasheet_ceilings(const DeviceInfo& device);

// The CUDA names that have a table.
std::vector<std::string> datasheet_gpu_names();

// What kernelpro assumes on a machine without a GPU: the H200's table (the GPU it targets) with the
// H200's limits, labelled as datasheet values and why no GPU was used.
DeviceCeilings no_gpu_ceilings(const std::string& why);

}  // namespace kp::gpu
