#include "common/resource_locator.h"

#include <cstdlib>
#include <system_error>

namespace kp {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> variable_value(const std::string& variable) {
    if (variable.empty()) return std::nullopt;
    const char* value = std::getenv(variable.c_str());
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

bool path_exists(const fs::path& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

std::string joined(const std::vector<fs::path>& paths) {
    std::string out;
    for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
    return out;
}

}  // namespace

std::optional<fs::path> running_executable() {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return std::nullopt;
    return self;
}

std::optional<fs::path> enclosing_build_tree(const fs::path& executable) {
    for (fs::path dir = executable.parent_path(); !dir.empty(); dir = dir.parent_path()) {
        if (path_exists(dir / "CMakeCache.txt")) return dir;
        if (dir == dir.root_path()) break;
    }
    return std::nullopt;
}

std::vector<fs::path> resource_candidates(const ResourceQuery& query) {
    std::vector<fs::path> candidates;
    if (auto value = variable_value(query.variable)) {
        candidates.push_back(query.below_variable.empty() ? fs::path(*value) : fs::path(*value) / query.below_variable);
        // A variable that names the resource, or a path that does not exist, is the only place. A
        // folder that exists but lacks this file is no typo (a helper folder need not hold every
        // helper), so the usual places follow it.
        if (query.below_variable.empty() || !path_exists(*value)) return candidates;
    }
    auto self = running_executable();
    if (!self) return candidates;
    const fs::path prefix = self->parent_path().parent_path();
    for (const auto& place : query.in_prefix) candidates.push_back(prefix / place);
    if (auto tree = enclosing_build_tree(*self); tree && *tree != prefix)
        for (const auto& place : query.in_prefix) candidates.push_back(*tree / place);
    return candidates;
}

Result<fs::path> locate_resource(const ResourceQuery& query) {
    const auto candidates = resource_candidates(query);
    for (const auto& candidate : candidates)
        if (path_exists(candidate)) return candidate;
    if (auto value = variable_value(query.variable); value && !path_exists(*value))
        return make_error(query.description + " not found: $" + query.variable + "=" + *value + " does not exist");
    std::string where = candidates.empty() ? "the running executable's path is unknown" : "looked in " + joined(candidates);
    if (!query.variable.empty() && !variable_value(query.variable)) where += "; set " + query.variable;
    return make_error(query.description + " not found (" + where + ")");
}

Result<fs::path> locate_abi_header() {
    return locate_resource({"the candidate ABI header kernelpro/abi.h", "KERNELPRO_INCLUDE_DIR", "kernelpro/abi.h",
                            {"include/kernelpro/abi.h"}});
}

Result<fs::path> locate_prompts_directory() {
    return locate_resource({"the prompt templates", "KERNELPRO_PROMPTS_DIR", "", {"share/kernelpro/prompts"}});
}

Result<fs::path> locate_helper(const std::string& file_name) {
    return locate_resource({file_name, "KERNELPRO_HELPER_DIR", file_name, {fs::path("bin") / file_name, fs::path("lib") / file_name}});
}

Result<fs::path> locate_worker() {
    return locate_resource({"kernelpro-worker", "KERNELPRO_WORKER", "", {"bin/kernelpro-worker"}});
}

Result<fs::path> locate_nvidia_tools() {
    return locate_resource({"NVIDIA tools from PyPI (scripts/install-nvidia-tools)", "", "", {"libexec/kernelpro/nvidia"}});
}

}  // namespace kp
