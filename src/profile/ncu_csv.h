// Parsers for ncu's CSV metric pages. Columns are always found by header name (the set changes per
// page and per kernel), numbers lose their thousands separators, and non-CSV lines (the program's
// stdout, ==PROF== log) are ignored.
//   long layout: live `--csv --metrics/--section`, and `-i rep --page details --csv` with rule rows;
//   wide layout: `-i rep --page raw --csv`, row 2 holds the units, one row per kernel.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.h"
#include "profile/kernel_metrics.h"

namespace kp::profile {

enum class NcuCsvLayout { long_format, wide_format, unknown };

NcuCsvLayout detect_ncu_csv_layout(std::string_view text);

// One KernelMetrics per profiled launch (by ID), in the order ncu printed them.
Result<std::vector<KernelMetrics>> parse_ncu_long_csv(std::string_view text);
Result<std::vector<KernelMetrics>> parse_ncu_wide_csv(std::string_view text);

// Detects the layout and parses it.
Result<std::vector<KernelMetrics>> parse_ncu_csv(std::string_view text);

}  // namespace kp::profile
