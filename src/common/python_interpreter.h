// The Python interpreter kernelpro asks when it needs Python (the PyTorch bridge, the KernelBench
// importer, where pip put the CUTLASS headers): $KERNELPRO_PYTHON, else python3 in PATH.
#pragma once

#include <string>

#include "common/result.h"

namespace kp {

// $KERNELPRO_PYTHON, else python3 found in PATH.
Result<std::string> python_executable();

}  // namespace kp
