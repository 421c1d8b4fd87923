// Compiler resource reports: the ptxas -v log (nvcc -Xptxas -v, on stderr) and cuobjdump -res-usage.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace kp::profile {

struct PtxasFunction {
    std::string name;  // mangled
    std::string arch;  // "sm_90a"
    bool entry = false;
    int registers = 0;
    int barriers = 0;
    long stack_frame_bytes = 0;
    long spill_store_bytes = 0;
    long spill_load_bytes = 0;
    long shared_bytes = 0;            // static smem
    long cumulative_stack_bytes = 0;
    long constant_bytes = 0;          // cmem[0], printed by older toolkits only
    std::optional<double> compile_ms;
};

struct PtxasReport {
    long global_bytes = 0;
    std::vector<PtxasFunction> functions;
    std::vector<std::string> warnings;  // "ptxas warning : ..." lines, verbatim

    const PtxasFunction* find(std::string_view mangled_name) const;
};

Result<PtxasReport> parse_ptxas_report(std::string_view text);

// One "Function <name>:" block of `cuobjdump -res-usage`.
struct ResourceUsage {
    std::string function;
    std::string arch;
    int registers = 0;
    long stack = 0, shared = 0, local = 0, constant0 = 0;
    int texture = 0, surface = 0, sampler = 0;
};

Result<std::vector<ResourceUsage>> parse_cuobjdump_resource_usage(std::string_view text);

}  // namespace kp::profile
