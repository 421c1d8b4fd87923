#include "eval/python_environment.h"

#include <cstdlib>

#include "common/process.h"
#include "gpu/helper_paths.h"

namespace kp {

namespace fs = std::filesystem;

Result<std::string> python_executable() {
    if (const char* explicit_python = std::getenv("KERNELPRO_PYTHON"); explicit_python && *explicit_python) {
        if (auto found = find_executable(explicit_python)) return *found;
        return make_error(std::string("KERNELPRO_PYTHON=") + explicit_python + " is not an executable");
    }
    if (auto found = find_executable("python3")) return *found;
    return make_error("python3 not found in PATH (PyTorch tasks need Python with torch; set KERNELPRO_PYTHON)");
}

Result<fs::path> python_package_directory() {
    std::vector<fs::path> candidates;
    if (const char* dir = std::getenv("KERNELPRO_PYTHON_DIR"); dir && *dir) candidates.emplace_back(dir);
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        candidates.push_back(self.parent_path().parent_path() / "python");
        candidates.push_back(self.parent_path().parent_path() / "share" / "kernelpro" / "python");
    }
#ifdef KP_SOURCE_DIR
    candidates.push_back(fs::path(KP_SOURCE_DIR) / "python");
#endif
    for (const auto& dir : candidates)
        if (fs::is_regular_file(dir / "kernelpro_torch" / "bridge.py", ec)) return dir;
    return make_error("the kernelpro_torch Python package was not found (set KERNELPRO_PYTHON_DIR to the folder holding it)");
}

Result<std::vector<std::string>> python_worker_command() {
    auto python = python_executable();
    if (!python.ok()) return python.error();
    auto package = python_package_directory();
    if (!package.ok()) return package.error();
    auto library = gpu::find_helper("libkernelpro_worker.so");
    if (!library) return make_error("libkernelpro_worker.so not found beside kernelpro (set KERNELPRO_HELPER_DIR)");
    return std::vector<std::string>{*python, (*package / "kernelpro_torch" / "worker_host.py").string(), library->string()};
}

Result<fs::path> find_bridge_library(const std::string& mode) {
    std::string name = "libkp_torch_" + mode + ".so";
    if (auto found = gpu::find_helper(name)) return *found;
    return make_error(name + " not found beside kernelpro (set KERNELPRO_HELPER_DIR)");
}

}  // namespace kp
