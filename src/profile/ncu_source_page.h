// ncu's per-instruction source page: `--page source --csv --print-source sass` (or `cuda,sass`).
// Each kernel block opens with a "Kernel Name" row (the cuda,sass variant adds "File Path" and
// "Function Name" rows), then a header, then one row per SASS instruction with its counters
// (instructions executed, L2 theoretical sectors vs ideal, shared wavefronts, stall samples ...).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "profile/metric_value.h"

namespace kp::profile {

struct SourceRow {
    std::uint64_t address = 0;  // absolute virtual address as printed
    std::uint64_t offset = 0;   // address minus the block's first address (function-relative)
    std::string sass;           // "LDG.E R6, desc[UR6][R6.64]"
    std::optional<int> line;    // CUDA source line (cuda,sass variant only)
    std::string cuda_source;    // the CUDA source text of that line, when printed
    std::map<std::string, MetricValue> metrics;  // by column header, e.g. "L2 Theoretical Sectors Global"

    std::optional<double> number(const std::string& column) const;
};

struct SourcePage {
    std::string kernel_name;
    std::string file_path;      // cuda,sass variant
    std::string function_name;  // cuda,sass variant
    std::vector<SourceRow> rows;

    // Sum of a numeric column over all rows (0 when the column is absent).
    double column_sum(const std::string& column) const;
    bool has_column(const std::string& column) const;
};

// One SourcePage per kernel block, in print order (ncu may print the same kernel twice).
Result<std::vector<SourcePage>> parse_ncu_source_csv(std::string_view text);

}  // namespace kp::profile
