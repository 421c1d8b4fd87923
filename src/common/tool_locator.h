// Finds NVIDIA command-line tools (ncu, nvdisasm, cuobjdump, nvcc, compute-sanitizer): the one
// locator that `doctor` reports with and the profilers run with, so they never disagree. Order:
// the environment variable KERNELPRO_<TOOL> (e.g. KERNELPRO_NVDISASM), PATH, $CUDA_HOME/bin,
// $CUDA_PATH/bin, /usr/local/cuda/bin, the Nsight Compute folders beside the toolkit, the
// pip-installed copies of scripts/install-nvidia-tools (libexec/kernelpro/nvidia through the
// resource locator, then ./.tools/nvidia) and, for ncu, /opt/nvidia/nsight-compute and
// /usr/local/NVIDIA-Nsight-Compute.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp {

std::optional<std::string> locate_nvidia_tool(const std::string& tool);

// As above, or an error naming every place searched and how to install the tool.
Result<std::string> require_nvidia_tool(const std::string& tool);

// Directories where CUDA tools usually live, most specific first.
std::vector<std::string> cuda_tool_directories();

}  // namespace kp
