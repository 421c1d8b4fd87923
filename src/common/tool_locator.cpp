#include "common/tool_locator.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

#include "common/process.h"
#include "common/resource_locator.h"

namespace kp {
namespace {

namespace fs = std::filesystem;

bool is_executable_file(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    auto perms = fs::status(path, ec).permissions();
    return (perms & fs::perms::owner_exec) != fs::perms::none;
}

std::string env_name(const std::string& tool) {
    std::string name = "KERNELPRO_";
    for (char c : tool) name.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    return name;
}

// Roots that may hold scripts/install-nvidia-tools' wheels: the resource locator's (installed as
// libexec/kernelpro/nvidia; the build tree links it to the checkout's .tools/nvidia), and the
// current directory's .tools (for a binary run from a checkout).
std::vector<fs::path> tools_roots() {
    std::vector<fs::path> roots;
    if (auto installed = locate_nvidia_tools()) roots.push_back(*installed);
    std::error_code ec;
    roots.emplace_back(fs::current_path(ec) / ".tools" / "nvidia");
    return roots;
}

// The pip wheels put binaries in nvidia/cu<major>/bin (13.x) or nvidia/cuda_<tool>/bin (12.x).
std::optional<std::string> find_in_tools(const std::string& tool) {
    for (const fs::path& root : tools_roots()) {
        std::error_code ec;
        if (!fs::is_directory(root, ec)) continue;
        std::vector<fs::path> hits;
        for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (it->path().filename() == tool && it->path().parent_path().filename() == "bin" && is_executable_file(it->path()))
                hits.push_back(it->path());
        }
        if (!hits.empty()) {
            std::sort(hits.begin(), hits.end());
            return hits.back().string();  // the highest versioned folder sorts last
        }
    }
    return std::nullopt;
}

std::optional<std::string> find_nsight_compute(const std::string& tool) {
    if (tool != "ncu") return std::nullopt;
    for (const char* base : {"/opt/nvidia/nsight-compute", "/usr/local/NVIDIA-Nsight-Compute"}) {
        std::error_code ec;
        if (!fs::is_directory(base, ec)) continue;
        if (is_executable_file(fs::path(base) / "ncu")) return (fs::path(base) / "ncu").string();
        std::vector<fs::path> versions;
        for (auto it = fs::directory_iterator(base, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            if (is_executable_file(it->path() / "ncu")) versions.push_back(it->path() / "ncu");
        if (!versions.empty()) {
            std::sort(versions.begin(), versions.end());
            return versions.back().string();
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> locate_nvidia_tool(const std::string& tool) {
    if (const char* from_env = std::getenv(env_name(tool).c_str()); from_env && *from_env) {
        if (is_executable_file(from_env)) return std::string(from_env);
        return std::nullopt;  // an explicit setting that is wrong should not silently fall through
    }
    if (auto in_path = find_executable(tool)) return in_path;
    for (const auto& dir : cuda_tool_directories())
        if (fs::path in_cuda = fs::path(dir) / tool; is_executable_file(in_cuda)) return in_cuda.string();
    if (auto pip = find_in_tools(tool)) return pip;
    return find_nsight_compute(tool);
}

std::vector<std::string> cuda_tool_directories() {
    std::vector<std::string> dirs;
    for (const char* variable : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* value = std::getenv(variable); value && *value) dirs.push_back(std::string(value) + "/bin");
    dirs.push_back("/usr/local/cuda/bin");
    // ncu is often installed beside the toolkit rather than in its bin folder.
    for (const char* root : {"/usr/local/cuda", "/opt/nvidia"}) {
        std::error_code ec;
        for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
            if (it->path().filename().string().rfind("nsight-compute", 0) == 0) dirs.push_back(it->path().string());
    }
    return dirs;
}

Result<std::string> require_nvidia_tool(const std::string& tool) {
    if (auto path = locate_nvidia_tool(tool)) return *path;
    std::string message = tool + " not found (searched $" + env_name(tool) + ", PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, .tools/nvidia";
    if (tool == "ncu") message += ", /opt/nvidia/nsight-compute";
    message += ")";
    if (tool == "nvdisasm" || tool == "cuobjdump") message += "; run scripts/install-nvidia-tools";
    if (const char* from_env = std::getenv(env_name(tool).c_str()); from_env && *from_env)
        message += "; $" + env_name(tool) + "=" + from_env + " is not an executable file";
    return make_error(message);
}

}  // namespace kp
