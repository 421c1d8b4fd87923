// Finds kernelpro's helper programs and libraries (kernelpro-ceilings, libkp_timeline.so).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kp::gpu {

// Where helpers are looked for, in order: $KERNELPRO_HELPER_DIR, the running binary's folder, its
// ../lib, and the build tree's bin/ and lib/ (compiled in, for running from a build folder).
std::vector<std::filesystem::path> helper_search_directories();

std::optional<std::filesystem::path> find_helper(const std::string& file_name);

}  // namespace kp::gpu
