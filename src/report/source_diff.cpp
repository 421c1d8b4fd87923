#include "report/source_diff.h"

#include <dtl/dtl.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

namespace kp::report {

namespace {
std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Every line of both sides in order, as dtl's shortest edit script gives it.
std::vector<DiffLine> full_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    dtl::Diff<std::string, std::vector<std::string>> diff(a, b, /*deletesFirst=*/true);
    diff.compose();
    std::vector<DiffLine> rows;
    for (const auto& [text, info] : diff.getSes().getSequence()) {
        DiffLine row;
        row.text = text;
        row.kind = info.type == dtl::SES_ADD ? '+' : info.type == dtl::SES_DELETE ? '-' : ' ';
        if (info.type != dtl::SES_ADD) row.old_line = static_cast<long>(info.beforeIdx);
        if (info.type != dtl::SES_DELETE) row.new_line = static_cast<long>(info.afterIdx);
        rows.push_back(std::move(row));
    }
    return rows;
}
}  // namespace

std::vector<DiffLine> diff_lines(const std::string& before, const std::string& after, int context) {
    auto rows = full_script(split_lines(before), split_lines(after));
    // Keep unchanged rows within `context` of a change; collapse each other run into one row.
    std::vector<bool> keep(rows.size(), false);
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].kind == ' ') continue;
        size_t from = i >= static_cast<size_t>(context) ? i - static_cast<size_t>(context) : 0;
        size_t to = std::min(rows.size(), i + static_cast<size_t>(context) + 1);
        for (size_t k = from; k < to; ++k) keep[k] = true;
    }
    std::vector<DiffLine> out;
    size_t skipped = 0;
    auto flush_skipped = [&] {
        if (skipped) out.push_back({'~', std::to_string(skipped), 0, 0});
        skipped = 0;
    };
    for (size_t i = 0; i < rows.size(); ++i) {
        if (!keep[i]) {
            ++skipped;
            continue;
        }
        flush_skipped();
        out.push_back(rows[i]);
    }
    flush_skipped();
    return out;
}

nlohmann::json to_json(const std::vector<DiffLine>& lines) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& l : lines)
        rows.push_back({{"kind", std::string(1, l.kind)}, {"text", l.text}, {"old", l.old_line}, {"new", l.new_line}});
    return rows;
}

}  // namespace kp::report
