// A line diff of two sources (the best kernel against its start), with a few lines of context
// around each change, computed by dtl (Debian's libdtl-dev) and handed to the report as plain rows.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace kp::report {

struct DiffLine {
    char kind = ' ';   // ' ' unchanged, '+' added, '-' removed, '~' skipped unchanged lines
    std::string text;  // for '~': how many lines were skipped
    long old_line = 0; // 1-based; 0 when the line is not in that side
    long new_line = 0;
};

// Lines more than `context` lines away from any change collapse into one '~' row.
std::vector<DiffLine> diff_lines(const std::string& before, const std::string& after, int context = 3);

nlohmann::json to_json(const std::vector<DiffLine>& lines);

}  // namespace kp::report
