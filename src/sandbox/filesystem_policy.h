// The filesystem view of sandboxed candidate code: what it may read (system libraries, /proc,
// /sys, the libraries it was given), what it may write (the scratch folder only) and which device
// files it may use (the GPU's). Landlock enforces it; the supervisor checks the same lists to
// report an attempt outside them. Paths are absolute and canonical (symbolic links resolved).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kp::sandbox {

struct FilesystemPolicy {
    std::vector<std::string> read_only;   // folders and files: read, list
    std::vector<std::string> read_write;  // folders: read, write, create, remove
    std::vector<std::string> devices;     // device files (and /dev/nvidia-caps): read, write, ioctl

    // `path` must be absolute and canonical.
    bool may_read(const std::string& path) const;
    bool may_write(const std::string& path) const;

    nlohmann::json to_json() const;
    static FilesystemPolicy from_json(const nlohmann::json& j);
};

// True when `path` is `root` or lies below it (both canonical).
bool path_is_within(const std::string& path, const std::string& root);

// Collapses "//", "." and ".." without touching the filesystem ("/a/./b/../c" -> "/a/c").
std::string normalize_lexically(const std::string& absolute_path);

}  // namespace kp::sandbox
