#include "eval/python_environment.h"

#include <sstream>

#include "common/process.h"
#include "common/resource_locator.h"

namespace kp {

namespace fs = std::filesystem;

Result<fs::path> python_package_directory() {
    return locate_resource({"the kernelpro_torch Python package", "KERNELPRO_PYTHON_DIR", "", {"share/kernelpro/python"}});
}

Result<std::vector<std::string>> python_worker_command() {
    auto python = python_executable();
    if (!python.ok()) return python.error();
    auto package = python_package_directory();
    if (!package.ok()) return package.error();
    auto library = locate_helper("libkernelpro_worker.so");
    if (!library.ok()) return library.error();
    return std::vector<std::string>{*python, (*package / "kernelpro_torch" / "worker_host.py").string(), library->string()};
}

std::vector<std::string> python_read_paths() {
    static const std::vector<std::string> paths = [] {
        std::vector<std::string> found;
        if (auto package = python_package_directory(); package.ok()) found.push_back(package->string());
        auto python = python_executable();
        if (!python.ok()) return found;
        ProcessOptions options;
        options.timeout = std::chrono::seconds(30);
        auto run = run_process({*python, "-c",
                                "import site, sys; print('\\n'.join([sys.prefix, sys.base_prefix] + site.getsitepackages() + "
                                "[site.getusersitepackages()]))"},
                               options);
        if (!run.ok() || !run->succeeded()) return found;
        std::istringstream lines(run->stdout_text);
        for (std::string line; std::getline(lines, line);)
            if (!line.empty() && fs::exists(line)) found.push_back(line);
        return found;
    }();
    return paths;
}

Result<fs::path> find_bridge_library(const std::string& mode) { return locate_helper("libkp_torch_" + mode + ".so"); }

}  // namespace kp
