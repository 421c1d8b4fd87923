// Disassembles a compiled candidate: extracts its cubins (`cuobjdump -xelf all`, for .so files and
// executables; a .cubin is used as is), then runs `nvdisasm -json` and `nvdisasm -c -g` on each and
// joins them, so every instruction carries its source line when the build used -lineinfo. Also
// records `cuobjdump -res-usage`. Needs no GPU.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "profile/collector.h"
#include "profile/ptxas_report.h"
#include "profile/sass_program.h"

namespace kp::profile {

struct SassRequest {
    std::filesystem::path binary;  // .cubin, .so or executable
    std::string cache_key;         // build hash; empty = no caching
    std::chrono::seconds timeout{120};
    bool refresh_cache = false;    // collect again and overwrite what the cache holds
};

struct CubinDisassembly {
    std::string cubin_name;  // e.g. "t.1.sm_90a.cubin"
    SassProgram program;     // with line info attached
};

struct SassCollection {
    std::vector<CubinDisassembly> cubins;
    std::vector<ResourceUsage> resources;  // empty for a bare .cubin
    bool from_cache = false;

    // A function by mangled name, or by kernel name as ncu prints it ("copy_vec4(const float4 *, ...)").
    const SassFunction* find_function(std::string_view name) const;
    const ResourceUsage* find_resources(std::string_view name) const;
};

class SassCollector {
public:
    // Empty paths: located with locate_nvidia_tool when collecting.
    SassCollector(std::string nvdisasm_path = {}, std::string cuobjdump_path = {},
                  std::optional<CollectorCache> cache = std::nullopt);

    static constexpr const char* name() { return "sass"; }
    // Offline tools: no replay; about a second for a typical candidate (two nvdisasm runs per cubin).
    CollectorCost cost() const { return CollectorCost{0, 1.0}; }

    Result<SassCollection> collect(const SassRequest& request) const;

private:
    std::string nvdisasm_path_;
    std::string cuobjdump_path_;
    std::optional<CollectorCache> cache_;
};

}  // namespace kp::profile
