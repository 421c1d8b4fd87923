// Finds NVIDIA command-line tools (ncu, nvdisasm, cuobjdump, nvcc). Order: the environment variable
// KERNELPRO_<TOOL> (e.g. KERNELPRO_NVDISASM), PATH, /usr/local/cuda/bin, then the pip-installed
// copies of scripts/install-nvidia-tools (libexec/kernelpro/nvidia through the resource locator,
// then ./.tools/nvidia) and, for ncu, the usual Nsight Compute install folders.
#pragma once

#include <optional>
#include <string>

#include "common/result.h"

namespace kp::profile {

std::optional<std::string> locate_nvidia_tool(const std::string& tool);

// As above, or an error naming every place searched and how to install the tool.
Result<std::string> require_nvidia_tool(const std::string& tool);

}  // namespace kp::profile
