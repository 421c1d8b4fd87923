#include "gpu/toolchain.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "common/process.h"
#include "common/tool_locator.h"
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

ToolStatus probe_tool(const std::string& name, const std::string& needed_for) {
    ToolStatus status;
    status.name = name;
    status.needed_for = needed_for;
    std::optional<std::string> path = locate_nvidia_tool(name);  // the profilers' locator too
    if (!path) {
        status.detail = "not found ($KERNELPRO_<TOOL>, PATH, the CUDA folders, .tools/nvidia)";
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
