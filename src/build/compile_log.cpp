#include "build/compile_log.h"

#include <regex>
#include <set>
#include <sstream>
#include <vector>

namespace kp {

namespace {

bool is_error_line(const std::string& line) {
    static const std::regex error_pattern(
        R"((\berror\b|fatal|undefined reference|ptxas .*error|nvlink error|Error:))", std::regex::icase);
    return std::regex_search(line, error_pattern);
}

// "/tmp/kp-123/abc/candidate.cu(12): error: x" -> "candidate.cu(12): error: x"
std::string shorten_paths(const std::string& line) {
    static const std::regex path_pattern(R"((/[^\s:()'"]+/)([^/\s:()'"]+\.(cu|cuh|h|hpp|cpp)))");
    return std::regex_replace(line, path_pattern, "$2");
}

}  // namespace

std::string trim_compile_log(const std::string& log, const TrimOptions& options) {
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) lines.push_back(shorten_paths(line));

    std::vector<std::string> kept;
    std::set<std::string> seen;
    bool any_error = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (!is_error_line(lines[i])) continue;
        any_error = true;
        if (!seen.insert(lines[i]).second) continue;
        kept.push_back(lines[i]);
        for (size_t k = 1; k <= options.context_lines && i + k < lines.size() && !is_error_line(lines[i + k]); ++k) {
            if (lines[i + k].find("Compilation terminated") != std::string::npos) break;
            kept.push_back(lines[i + k]);
        }
    }
    if (!any_error) {  // no recognisable error: keep the tail, where tools put the reason
        size_t start = lines.size() > options.max_lines ? lines.size() - options.max_lines : 0;
        kept.assign(lines.begin() + static_cast<long>(start), lines.end());
    }
    std::string out;
    size_t count = 0;
    for (const auto& line : kept) {
        if (count == options.max_lines || out.size() + line.size() + 1 > options.max_chars) {
            out += "... (" + std::to_string(kept.size() - count) + " more lines)\n";
            break;
        }
        out += line + "\n";
        ++count;
    }
    return out;
}

std::string cite_source_file(const std::string& log, const std::string& user_file) {
    static const std::regex cache_copy(R"((/[^\s:()'"]*/)?\bcandidate\.cu\b)");
    std::string replacement;
    for (char c : user_file) replacement += c == '$' ? std::string("$$") : std::string(1, c);  // no group references
    return std::regex_replace(log, cache_copy, replacement);
}

}  // namespace kp
