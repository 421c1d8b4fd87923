// Where kernelpro finds Python for its PyTorch bridge (docs/kernelbench.md): the interpreter
// ($KERNELPRO_PYTHON, else python3 in PATH) and the kernelpro_torch package, through the resource
// locator ($KERNELPRO_PYTHON_DIR, else share/kernelpro/python: python/ of the checkout, linked
// into the build tree, or the installed copy).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/python_interpreter.h"  // python_executable()
#include "common/result.h"

namespace kp {

// The folder that holds kernelpro_torch/.
Result<std::filesystem::path> python_package_directory();

// The command that starts a worker inside Python: {python, worker_host.py, libkernelpro_worker.so}.
Result<std::vector<std::string>> python_worker_command();

// What the PyTorch bridge may still read once the worker's sandbox is on (Python's prefixes and
// site-packages, kernelpro_torch): asked of the interpreter once per process.
std::vector<std::string> python_read_paths();

// A trusted bridge library (libkp_torch_eager.so, libkp_torch_compile.so) among kernelpro's helpers.
Result<std::filesystem::path> find_bridge_library(const std::string& mode);

}  // namespace kp
