#include "gpu/helper_paths.h"

#include "common/resource_locator.h"

namespace kp::gpu {

std::optional<std::filesystem::path> find_helper(const std::string& file_name) {
    auto found = locate_helper(file_name);
    if (!found) return std::nullopt;
    return *found;
}

}  // namespace kp::gpu
