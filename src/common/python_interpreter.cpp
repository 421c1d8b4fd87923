#include "common/python_interpreter.h"

#include <cstdlib>

#include "common/process.h"

namespace kp {

Result<std::string> python_executable() {
    if (const char* explicit_python = std::getenv("KERNELPRO_PYTHON"); explicit_python && *explicit_python) {
        if (auto found = find_executable(explicit_python)) return *found;
        return make_error(std::string("KERNELPRO_PYTHON=") + explicit_python + " is not an executable");
    }
    if (auto found = find_executable("python3")) return *found;
    return make_error("python3 not found in PATH (PyTorch tasks need Python with torch; set KERNELPRO_PYTHON)");
}

}  // namespace kp
