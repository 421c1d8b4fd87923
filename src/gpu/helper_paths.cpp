#include "gpu/helper_paths.h"

#include <cstdlib>

namespace kp::gpu {

namespace fs = std::filesystem;

std::vector<fs::path> helper_search_directories() {
    std::vector<fs::path> dirs;
    if (const char* explicit_dir = std::getenv("KERNELPRO_HELPER_DIR"); explicit_dir && *explicit_dir)
        dirs.emplace_back(explicit_dir);
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        dirs.push_back(self.parent_path());
        dirs.push_back(self.parent_path().parent_path() / "lib");
    }
#ifdef KP_BUILD_OUTPUT_DIR
    dirs.push_back(fs::path(KP_BUILD_OUTPUT_DIR) / "bin");
    dirs.push_back(fs::path(KP_BUILD_OUTPUT_DIR) / "lib");
#endif
    return dirs;
}

std::optional<fs::path> find_helper(const std::string& file_name) {
    for (const auto& dir : helper_search_directories()) {
        std::error_code ec;
        fs::path candidate = dir / file_name;
        if (fs::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

}  // namespace kp::gpu
