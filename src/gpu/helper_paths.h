// Finds kernelpro's helper programs and libraries (kernelpro-ceilings, libkp_timeline.so,
// libkp_counters.so) through the resource locator.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kp::gpu {

// $KERNELPRO_HELPER_DIR/<name>, else <exe>/../bin or <exe>/../lib, else the build tree's bin/ or
// lib/ (common/resource_locator.h; its locate_helper says where it looked).
std::optional<std::filesystem::path> find_helper(const std::string& file_name);

}  // namespace kp::gpu
