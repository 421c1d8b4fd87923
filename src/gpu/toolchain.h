// Which CUDA tools and libraries this machine has, with versions. Runs each tool with --version
// through kp::run_process and opens CUPTI/NVML with dlopen; needs no GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kp::gpu {

struct ToolStatus {
    std::string name;         // "nvcc", "ncu", "cupti" ...
    bool found = false;
    std::string path;         // executable or library that was found
    std::string version;      // "13.0.88", "2025.3.1.0", "130001"
    std::string detail;       // why it is missing, or a note
    std::string needed_for;   // what kernelpro uses it for
};

void to_json(nlohmann::json& j, const ToolStatus& tool);

// The version number in a tool's --version text: "V13.0.88" (nvcc family), "Version 2025.3.1.0"
// (ncu, compute-sanitizer), else "release 13.0". Empty when none is recognised.
std::string parse_tool_version(const std::string& version_text);

// Finds a tool with the locator the profilers use (common/tool_locator.h) and runs it with
// --version.
ToolStatus probe_tool(const std::string& name, const std::string& needed_for);

// libcupti.so.13 (PATH-independent: soname, then the toolkit's lib64 and extras/CUPTI folders);
// the version is cuptiGetVersion's API number (130001 for CUDA 13.0).
ToolStatus probe_cupti();
// libnvidia-ml.so.1; the version is the driver version NVML reports.
ToolStatus probe_nvml();

// nvcc, ncu, nvdisasm, cuobjdump, compute-sanitizer, CUPTI, NVML.
std::vector<ToolStatus> probe_toolchain();

}  // namespace kp::gpu
