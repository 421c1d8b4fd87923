// For tests that build candidates with nvcc or read their SASS: the first NVIDIA tool this machine
// lacks, so such a test skips naming it (scripts/install-nvidia-tools) instead of failing.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "common/tool_locator.h"

namespace kp::testing {

inline std::optional<std::string> missing_nvidia_tool(std::initializer_list<const char*> tools) {
    for (const char* tool : tools)
        if (!kp::locate_nvidia_tool(tool)) return std::string(tool);
    return std::nullopt;
}

}  // namespace kp::testing
