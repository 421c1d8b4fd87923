#include "sandbox/filesystem_policy.h"

#include <algorithm>

namespace kp::sandbox {

bool path_is_within(const std::string& path, const std::string& root) {
    if (root.empty() || path.empty()) return false;
    if (root == "/") return path[0] == '/';
    if (path.compare(0, root.size(), root) != 0) return false;
    return path.size() == root.size() || path[root.size()] == '/';
}

std::string normalize_lexically(const std::string& absolute_path) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < absolute_path.size()) {
        size_t next = absolute_path.find('/', i);
        if (next == std::string::npos) next = absolute_path.size();
        std::string part = absolute_path.substr(i, next - i);
        if (part == "..") {
            if (!parts.empty()) parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        i = next + 1;
    }
    std::string out;
    for (const auto& p : parts) out += "/" + p;
    return out.empty() ? "/" : out;
}

namespace {
bool within_any(const std::string& path, const std::vector<std::string>& roots) {
    return std::any_of(roots.begin(), roots.end(), [&](const std::string& r) { return path_is_within(path, r); });
}
}  // namespace

bool FilesystemPolicy::may_read(const std::string& path) const {
    return within_any(path, read_only) || within_any(path, read_write) || within_any(path, devices);
}

bool FilesystemPolicy::may_write(const std::string& path) const {
    return within_any(path, read_write) || within_any(path, devices);
}

nlohmann::json FilesystemPolicy::to_json() const {
    return {{"read_only", read_only}, {"read_write", read_write}, {"devices", devices}};
}

FilesystemPolicy FilesystemPolicy::from_json(const nlohmann::json& j) {
    FilesystemPolicy p;
    if (!j.is_object()) return p;
    p.read_only = j.value("read_only", p.read_only);
    p.read_write = j.value("read_write", p.read_write);
    p.devices = j.value("devices", p.devices);
    return p;
}

}  // namespace kp::sandbox
