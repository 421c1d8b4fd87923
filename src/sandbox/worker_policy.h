// The filesystem policy of the worker's sandbox, built from what is on this host when the sandbox
// goes on: system folders, /proc and /sys, the folders of every library already loaded (CUDA, the
// reference and what it pulled in) and of LD_LIBRARY_PATH, the libraries about to be loaded, the
// folders the request adds, the scratch folder, and the GPU's device files.
#pragma once

#include <string>
#include <vector>

#include "sandbox/filesystem_policy.h"
#include "sandbox/sandbox_settings.h"

namespace kp::sandbox {

FilesystemPolicy worker_filesystem_policy(const SandboxSettings& settings, const std::vector<std::string>& library_files);

}  // namespace kp::sandbox
