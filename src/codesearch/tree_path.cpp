#include "codesearch/tree_path.h"

#include <filesystem>

namespace kp::codesearch {

Result<std::string> normalize_tree_path(std::string_view path) {
    const auto first = path.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return std::string();
    path = path.substr(first, path.find_last_not_of(" \t\r\n") - first + 1);
    const std::string shown(path);
    if (path.find('\0') != std::string_view::npos) return make_error("refused: the path holds a NUL byte");
    if (path.front() == '/' || path.front() == '~')
        return make_error("refused: '" + shown + "' is outside the tree (paths are relative to the tree's root)");
    std::string normal = std::filesystem::path(path).lexically_normal().generic_string();
    while (!normal.empty() && normal.back() == '/') normal.pop_back();
    if (normal == ".") return std::string();
    if (normal == ".." || normal.rfind("../", 0) == 0)
        return make_error("refused: '" + shown + "' is outside the tree (paths are relative to the tree's root)");
    return normal;
}

bool is_within(std::string_view path, std::string_view folder) {
    if (folder.empty()) return true;
    if (path.size() < folder.size() || path.compare(0, folder.size(), folder) != 0) return false;
    return path.size() == folder.size() || path[folder.size()] == '/';
}

}  // namespace kp::codesearch
