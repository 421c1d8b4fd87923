#include "sandbox/worker_policy.h"

#include <glob.h>
#include <link.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace kp::sandbox {

namespace {

// The canonical form of `path`, or "" when it does not exist.
std::string existing(const std::string& path) {
    if (path.empty()) return "";
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (!resolved) return "";
    std::string out(resolved);
    std::free(resolved);
    return out;
}

void add(std::vector<std::string>& list, const std::string& path) {
    std::string c = existing(path);
    if (!c.empty() && std::find(list.begin(), list.end(), c) == list.end()) list.push_back(c);
}

int collect_object_folder(dl_phdr_info* info, size_t, void* data) {
    std::string name = info->dlpi_name ? info->dlpi_name : "";
    if (name.find('/') != std::string::npos) add(*static_cast<std::vector<std::string>*>(data), std::filesystem::path(name).parent_path());
    return 0;
}

std::vector<std::string> gpu_device_files() {
    std::vector<std::string> files;
    glob_t found{};
    if (::glob("/dev/nvidia*", 0, nullptr, &found) == 0)
        for (size_t i = 0; i < found.gl_pathc; ++i) files.push_back(found.gl_pathv[i]);
    ::globfree(&found);
    return files;
}

}  // namespace

FilesystemPolicy worker_filesystem_policy(const SandboxSettings& settings, const std::vector<std::string>& library_files) {
    FilesystemPolicy p;
    for (const char* system : {"/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/opt", "/etc/ld.so.cache",
                               "/proc", "/sys", "/dev/zero", "/dev/urandom", "/dev/random"})
        add(p.read_only, system);
    if (const char* paths = std::getenv("LD_LIBRARY_PATH")) {
        std::stringstream list(paths);
        for (std::string dir; std::getline(list, dir, ':');) add(p.read_only, dir);
    }
    ::dl_iterate_phdr(collect_object_folder, &p.read_only);
    for (const auto& f : library_files) add(p.read_only, f);
    for (const auto& f : settings.read_paths) add(p.read_only, f);
    add(p.read_write, settings.scratch);
    for (const auto& f : settings.write_paths) add(p.read_write, f);
    for (const auto& f : gpu_device_files()) add(p.devices, f);
    add(p.devices, "/dev/null");
    return p;
}

}  // namespace kp::sandbox
