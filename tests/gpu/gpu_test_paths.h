// Where the gpu-labelled tests find their helper binaries. The build-tree paths are compiled in,
// but the tests may run from a copy of the build on another machine, so an environment variable
// wins, then a path relative to the test executable (build/tests/gpu/ -> build/), then the
// compiled-in path.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

inline std::string gpu_test_path(const char* variable, const char* relative_to_build, const char* compiled_in) {
    if (const char* value = std::getenv(variable); value && *value) return value;
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        auto candidate = self.parent_path().parent_path().parent_path() / relative_to_build;
        if (std::filesystem::exists(candidate, ec)) return candidate.string();
    }
    return compiled_in;
}

inline std::string ceilings_binary() {
    return gpu_test_path("KP_CEILINGS_BINARY", "bin/kernelpro-ceilings", KP_CEILINGS_BINARY);
}
inline std::string timeline_library() {
    return gpu_test_path("KP_TIMELINE_LIBRARY", "lib/libkp_timeline.so", KP_TIMELINE_LIBRARY);
}
inline std::string timeline_probe() {
    return gpu_test_path("KP_TIMELINE_PROBE", "tests/gpu/timeline_probe", KP_TIMELINE_PROBE);
}
