#include "gpu/toolchain.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "common/process.h"
#include "gpu/dynamic_library.h"
#include "gpu/nvml_library.h"

namespace kp::gpu {

namespace fs = std::filesystem;

void to_json(nlohmann::json& j, const ToolStatus& t) {
    j = {{"name", t.name}, {"found", t.found}, {"path", t.path}, {"version", t.version},
         {"detail", t.detail}, {"needed_for", t.needed_for}};
}

std::string parse_tool_version(const std::string& text) {
    // Most specific first: the nvcc family prints both "release 13.0" and "V13.0.88".
    static const std::regex patterns[] = {
        std::regex(R"(\bV(\d+\.\d+(?:\.\d+)+))"),
        std::regex(R"(\b[Vv]ersion:?\s+(\d+(?:\.\d+)+))"),
        std::regex(R"(\brelease\s+(\d+\.\d+))"),
    };
    for (const auto& pattern : patterns) {
        std::smatch match;
        if (std::regex_search(text, match, pattern)) return match[1].str();
    }
    return {};
}

std::vector<std::string> cuda_tool_directories() {
    std::vector<std::string> dirs;
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* value = std::getenv(variable); value && *value) dirs.push_back(std::string(value) + "/bin");
    dirs.push_back("/usr/local/cuda/bin");
    // ncu is often installed beside the toolkit rather than in its bin folder.
    std::error_code ec;
    for (const char* root : {"/usr/local/cuda", "/opt/nvidia"}) {
        for (const auto& entry : fs::directory_iterator(root, ec)) {
            std::string name = entry.path().filename().string();
            if (name.rfind("nsight-compute", 0) == 0) dirs.push_back(entry.path().string());
        }
    }
    return dirs;
}

ToolStatus probe_tool(const std::string& name, const std::string& needed_for) {
    ToolStatus status;
    status.name = name;
    status.needed_for = needed_for;
    std::optional<std::string> path = find_executable(name);
    for (const auto& dir : cuda_tool_directories()) {
        if (path) break;
        path = find_executable(dir + "/" + name);
    }
    if (!path) {
        status.detail = "not in PATH or the CUDA folders";
        return status;
    }
    status.found = true;
    status.path = *path;
    ProcessOptions options;
    options.timeout = std::chrono::seconds(30);  // ncu's first start can be slow
    auto run = run_process({*path, "--version"}, options);
    if (!run) {
        status.detail = run.error().message;
        return status;
    }
    status.version = parse_tool_version(run->stdout_text + "\n" + run->stderr_text);
    if (!run->succeeded()) status.detail = run->describe_failure();
    else if (status.version.empty()) status.detail = "version not recognised";
    return status;
}

ToolStatus probe_cupti() {
    ToolStatus status;
    status.name = "cupti";
    status.needed_for = "the kernel timeline (libkp_timeline.so)";
    std::vector<std::string> candidates = {"libcupti.so.13"};
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* value = std::getenv(variable); value && *value) {
            candidates.push_back(std::string(value) + "/lib64/libcupti.so.13");
            candidates.push_back(std::string(value) + "/extras/CUPTI/lib64/libcupti.so.13");
        }
    candidates.push_back("/usr/local/cuda/lib64/libcupti.so.13");
    candidates.push_back("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13");
    auto library = DynamicLibrary::open(candidates);
    if (!library) {
        status.detail = library.error().message;
        return status;
    }
    status.found = true;
    status.path = library->loaded_name();
    // CUptiResult cuptiGetVersion(uint32_t*): the result is an int enum, 0 on success.
    int (*get_version)(std::uint32_t*) = nullptr;
    std::uint32_t version = 0;
    if (library->bind(get_version, "cuptiGetVersion") && get_version(&version) == 0) status.version = std::to_string(version);
    else status.detail = "cuptiGetVersion unavailable";
    return status;
}

ToolStatus probe_nvml() {
    ToolStatus status;
    status.name = "nvml";
    status.needed_for = "clocks, power and energy during measurements";
    auto nvml = Nvml::load();
    if (!nvml) {
        status.detail = nvml.error().message;
        return status;
    }
    status.found = true;
    status.path = "libnvidia-ml.so.1";
    status.version = nvml->driver_version();
    return status;
}

std::vector<ToolStatus> probe_toolchain() {
    return {
        probe_tool("nvcc", "compiling candidates"),
        probe_tool("ncu", "hardware-counter profiles"),
        probe_tool("nvdisasm", "SASS analysis of cubins"),
        probe_tool("cuobjdump", "SASS and resource usage of binaries"),
        probe_tool("compute-sanitizer", "memory and race checks"),
        probe_cupti(),
        probe_nvml(),
    };
}

}  // namespace kp::gpu
