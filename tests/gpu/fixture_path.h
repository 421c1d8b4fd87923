// The fixtures folder: $KP_GPU_FIXTURES, the compiled-in source path, or tests/gpu/fixtures under
// the current directory (for test binaries copied to another machine and run from a checkout).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

inline std::string gpu_fixture(const std::string& name) {
    if (const char* dir = std::getenv("KP_GPU_FIXTURES"); dir && *dir) return std::string(dir) + "/" + name;
    std::error_code ec;
    if (std::filesystem::exists(std::string(KP_GPU_FIXTURES) + "/" + name, ec)) return std::string(KP_GPU_FIXTURES) + "/" + name;
    return "tests/gpu/fixtures/" + name;
}
