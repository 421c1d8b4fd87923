#include "llm/diagnostics_trim.h"

#include <fmt/format.h>

#include <cctype>
#include <set>
#include <vector>

namespace kp::llm {

namespace {

bool is_path_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+';
}

bool mentions_error(const std::string& line) {
    std::string lower;
    for (char c : line) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return lower.find("error") != std::string::npos || lower.find("mismatch") != std::string::npos ||
           lower.find("fail") != std::string::npos;
}

}  // namespace

std::string strip_directories(std::string_view text) {
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
        // An absolute path starts with '/' at a word boundary.
        const bool starts_path = text[i] == '/' && (i == 0 || !is_path_char(text[i - 1]));
        if (!starts_path) {
            out += text[i++];
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && is_path_char(text[end])) ++end;
        const std::string_view path = text.substr(i, end - i);
        const auto slash = path.rfind('/');
        out += slash + 1 < path.size() ? path.substr(slash + 1) : path;
        i = end;
    }
    return out;
}

std::string trim_diagnostics(std::string_view raw, const DiagnosticsLimits& limits) {
    const std::string text = strip_directories(raw);
    std::vector<std::string> lines;
    std::set<std::string> seen;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        if (line.size() > limits.max_line_chars) line = line.substr(0, limits.max_line_chars) + " [...]";
        if (!seen.insert(line).second) continue;  // template errors repeat the same note many times
        lines.push_back(std::move(line));
    }

    // Prefer error lines and their context when everything does not fit.
    std::vector<bool> keep(lines.size(), true);
    if (lines.size() > limits.max_lines) {
        std::fill(keep.begin(), keep.end(), false);
        std::size_t kept = 0;
        for (std::size_t i = 0; i < lines.size() && kept < limits.max_lines; ++i) {
            if (!mentions_error(lines[i])) continue;
            for (std::size_t j = i; j < lines.size() && j <= i + limits.context_lines && kept < limits.max_lines; ++j)
                if (!keep[j]) keep[j] = true, ++kept;
        }
        if (kept == 0)
            for (std::size_t i = 0; i < limits.max_lines; ++i) keep[i] = true;
    }

    std::string out;
    std::size_t omitted = 0;
    bool full = false;  // once a line does not fit, later ones are dropped too, so order is kept
    for (std::size_t i = 0; i < lines.size(); ++i) {
        full = full || (keep[i] && out.size() + lines[i].size() + 1 > limits.max_chars);
        if (!keep[i] || full) {
            ++omitted;
            continue;
        }
        out += lines[i] + "\n";
    }
    if (omitted > 0) out += fmt::format("[... {} more line{} omitted]\n", omitted, omitted == 1 ? "" : "s");
    return out;
}

}  // namespace kp::llm
