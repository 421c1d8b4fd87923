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
    static const std::regex path_pattern(R"((/[^\s:()'"]+/)([^/\s:()'"]+\.(cu|cuh|h|hpp|cpp|inl)))");
    return std::regex_replace(line, path_pattern, "$2");
}

// A line that starts a diagnostic of its own: "file.hpp(12): error: ...", "... note #3322-D: ...".
bool starts_diagnostic(const std::string& line) {
    static const std::regex header(R"(^\S[^(]*\(\d+\): (error|warning|note|remark)\b)");
    return std::regex_search(line, header) || line.find(" errors detected in the compilation") != std::string::npos ||
           line.find(" error detected in the compilation") != std::string::npos;
}

// The first `n` bytes of `text`, backed up to a UTF-8 character boundary (a cut never splits one).
size_t utf8_boundary(const std::string& text, size_t n) {
    while (n > 0 && n < text.size() && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
    return n;
}

std::string cut(const std::string& line, size_t max_chars) {
    return line.size() <= max_chars ? line : line.substr(0, utf8_boundary(line, max_chars)) + " [...]";
}

// `instantiation of "auto cute::crd2idx(...) [with Coord=..., ...]" at line 171 of layout.hpp`:
// the [with ...] list is most of a CuTe frame and rarely what explains it, so it is cut short.
std::string shorten_frame(const std::string& line, const TrimOptions& options) {
    std::string out = line;
    auto with = out.find(" [with ");
    auto close = out.rfind("]\" at line ");
    if (with != std::string::npos && close != std::string::npos && close > with + 7 + options.max_template_arguments_chars)
        out = out.substr(0, utf8_boundary(out, with + 7 + options.max_template_arguments_chars)) + " ..." + out.substr(close);
    return cut(out, options.max_line_chars);
}

// The file a frame's "at line N of FILE" names, or "".
std::string frame_file(const std::string& line) {
    static const std::regex at_line(R"(at line \d+ of (\S+?)\s*$)");
    std::smatch m;
    return std::regex_search(line, m, at_line) ? m[1].str() : "";
}

// The first error with what explains it: its source line and caret, the argument types, and of
// its "detected during" chain the innermost frame plus every frame in the user's own file (where
// the fix goes); the frames between, inside library headers, become one line saying how many.
std::vector<std::string> first_error_block(const std::vector<std::string>& lines, size_t first, const TrimOptions& options,
                                           size_t& end) {
    std::vector<std::string> out{cut(lines[first], options.max_line_chars)};
    end = first + 1;
    while (end < lines.size() && !lines[end].empty() && !starts_diagnostic(lines[end])) ++end;
    std::vector<std::string> frames;
    for (size_t i = first + 1; i < end; ++i) {
        const std::string& line = lines[i];
        if (line.find("instantiation of") != std::string::npos || line.find("processing of") != std::string::npos) {
            frames.push_back(line);
        } else if (line.find("detected during") != std::string::npos) {
            continue;  // announced below, once the frames are chosen
        } else {
            out.push_back(cut(line, options.max_line_chars));
        }
    }
    if (frames.empty()) return out;
    out.push_back("          detected during:");
    size_t skipped = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        const bool innermost = i == 0;
        const bool users = frame_file(frames[i]) == options.user_file;
        const bool outermost_without_user_frame = i + 1 == frames.size() && skipped == i - 1 && !users;
        if (innermost || users || outermost_without_user_frame) {
            if (skipped > 0)
                out.push_back("            [... " + std::to_string(skipped) + " instantiation frame" + (skipped == 1 ? "" : "s") +
                              " inside library headers ...]");
            skipped = 0;
            out.push_back(shorten_frame(frames[i], options));
        } else {
            ++skipped;
        }
    }
    if (skipped > 0)
        out.push_back("            [... " + std::to_string(skipped) + " more instantiation frame" + (skipped == 1 ? "" : "s") + " ...]");
    return out;
}

}  // namespace

std::string trim_compile_log(const std::string& log, const TrimOptions& options) {
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(shorten_paths(line));
    }

    std::vector<std::string> kept;
    size_t first = lines.size();
    for (size_t i = 0; i < lines.size() && first == lines.size(); ++i)
        if (is_error_line(lines[i]) && starts_diagnostic(lines[i])) first = i;
    for (size_t i = 0; i < lines.size() && first == lines.size(); ++i)  // a linker or ptxas error has no file(line)
        if (is_error_line(lines[i])) first = i;
    if (first == lines.size()) {  // no recognisable error: keep the tail, where tools put the reason
        size_t start = lines.size() > options.max_lines ? lines.size() - options.max_lines : 0;
        kept.assign(lines.begin() + static_cast<long>(start), lines.end());
    } else {
        size_t end = first + 1;
        kept = first_error_block(lines, first, options, end);
        // Later errors, one line each: in template code most follow from the first.
        std::set<std::string> seen{lines[first]};
        size_t later = 0, listed = 0;
        for (size_t i = end; i < lines.size(); ++i) {
            if (!is_error_line(lines[i]) || lines[i].find("detected in the compilation") != std::string::npos ||
                !seen.insert(lines[i]).second)
                continue;
            ++later;
            if (listed < options.later_errors) {
                if (listed == 0) kept.push_back("later errors (often consequences of the first):");
                kept.push_back(cut(lines[i], options.max_line_chars));
                ++listed;
            }
        }
        if (later > listed) kept.push_back("... and " + std::to_string(later - listed) + " more error" + (later - listed == 1 ? "" : "s"));
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
