// Where test programs find the checkout's files (tasks, recorded fixtures, test kernels):
// $KP_TEST_SOURCE_DIR when set (scripts/gpu-check sets it to the checkout it runs from, wherever
// that is), else the source folder the test was built from (KP_SOURCE_DIR, compiled into test
// targets only by kp_add_test). Programs of kernelpro itself never know a source path.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace kp::testing {

inline std::filesystem::path source_tree() {
    if (const char* dir = std::getenv("KP_TEST_SOURCE_DIR"); dir && *dir) return dir;
    return KP_SOURCE_DIR;
}

inline std::filesystem::path source_path(const std::string& relative) { return source_tree() / relative; }

}  // namespace kp::testing
