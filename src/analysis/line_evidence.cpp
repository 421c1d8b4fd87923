#include "analysis/line_evidence.h"

#include <cctype>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace kp::analysis {

std::vector<std::string_view> stall_reasons_for(std::string_view tool) {
    static const std::map<std::string_view, std::vector<std::string_view>> reasons = {
        {"uncoalesced_global_access", {"long_scoreboard", "lg_throttle"}},
        {"narrow_global_access", {"long_scoreboard", "lg_throttle"}},
        {"long_scoreboard_latency", {"long_scoreboard"}},
        {"dram_traffic_excess", {"long_scoreboard", "lg_throttle"}},
        {"l2_locality", {"long_scoreboard", "lg_throttle"}},
        {"register_spills", {"long_scoreboard", "lg_throttle"}},
        {"shared_bank_conflicts", {"mio_throttle", "short_scoreboard"}},
        {"barrier_stalls", {"barrier", "membar"}},
        {"atomic_contention", {"lg_throttle", "drain", "long_scoreboard", "membar"}},
        {"math_pipe_saturation", {"math_pipe_throttle", "wait", "not_selected", "selected", "dispatch_stall"}},
        {"fp64_or_unfused_math", {"math_pipe_throttle", "wait", "short_scoreboard", "selected"}},
        {"matmul_without_tensor_cores", {"math_pipe_throttle", "wait", "not_selected", "selected", "long_scoreboard"}},
        {"warp_divergence", {"branch_resolving", "no_instructions", "selected"}},
        // About the launch, not a line of the kernel.
        {"small_grid_tail", {}},
        {"occupancy_limit", {}},
        {"launch_overhead", {}},
        // About what the source says (its evidence is the claim's own line), not where time goes.
        {"unbacked_hardware_claim", {}},
    };
    auto found = reasons.find(tool);
    if (found == reasons.end()) return {"*"};
    return found->second;
}

std::string quoted_line(const std::vector<std::string>& source, int line, size_t max_chars) {
    if (line < 1 || static_cast<size_t>(line) > source.size()) return "";
    const std::string& text = source[line - 1];
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return "";
    const auto last = text.find_last_not_of(" \t\r\n");
    std::string trimmed = text.substr(first, last - first + 1);
    if (trimmed.size() > max_chars) trimmed = trimmed.substr(0, max_chars - 3) + "...";
    return trimmed;
}

namespace {

std::uint64_t samples_of(const profile::LineSamples& line, const std::vector<std::string_view>& reasons) {
    if (reasons.size() == 1 && reasons.front() == "*") return line.samples;
    std::uint64_t n = 0;
    for (std::string_view r : reasons)
        if (auto it = line.stalls.find(std::string(r)); it != line.stalls.end()) n += it->second;
    return n;
}

std::string instruction_text(const profile::SassFunction* function, std::uint64_t offset) {
    if (!function) return "";
    for (const auto& instruction : function->instructions)
        if (instruction.offset - function->start == offset) return instruction.text();
    return "";
}

// "61% of samples: lg_throttle 40%, long_scoreboard 21%; RED.E.ADD.F32.FTZ.RN.STRONG.GPU [R2.64], R5"
std::string describe(const profile::LineSamples& line, const std::vector<std::string_view>& reasons, std::uint64_t kernel_samples,
                     const profile::SassFunction* function) {
    std::vector<std::pair<std::uint64_t, std::string>> parts;
    for (const auto& [reason, count] : line.stalls)
        if ((reasons.size() == 1 && reasons.front() == "*") || std::find(reasons.begin(), reasons.end(), reason) != reasons.end())
            parts.push_back({count, reason});
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const double total = static_cast<double>(std::max<std::uint64_t>(1, kernel_samples));
    std::string text = format_percent(line.samples / total) + " of samples";
    for (size_t i = 0; i < parts.size() && i < 2; ++i)
        text += (i == 0 ? ": " : ", ") + parts[i].second + " " + format_percent(parts[i].first / total);
    std::string sass;
    for (size_t i = 0; i < line.offsets.size() && i < 2; ++i)
        if (auto instruction = instruction_text(function, line.offsets[i]); !instruction.empty())
            sass += (sass.empty() ? "" : " | ") + instruction;
    if (!sass.empty()) text += "; " + sass;
    return text;
}

// The lines of the instructions the tool itself cites (its SASS evidence, named by offset): the
// instructions behind the finding's cost, where the change goes; a stall can surface a line later
// (a load's consumer waits on long_scoreboard), so those lines come before lines that only wait.
std::set<std::pair<std::string, int>> cited_lines(const Finding& finding, const profile::SassFunction* function) {
    std::set<std::pair<std::string, int>> out;
    if (!function) return out;
    for (const auto& e : finding.evidence) {
        if (e.kind != Evidence::Kind::sass) continue;
        const std::uint64_t offset = std::strtoull(e.name.c_str(), nullptr, 16);
        for (const auto& instruction : function->instructions)
            if (instruction.offset == offset && instruction.location) out.insert({instruction.location->file, instruction.location->line});
    }
    return out;
}

}  // namespace

std::vector<Evidence> line_evidence(const Finding& finding, const ProfileData& data, size_t limit, double min_share) {
    std::vector<Evidence> out;
    if (!data.line_samples || data.line_samples->samples == 0) return out;
    const auto reasons = stall_reasons_for(finding.tool);
    if (reasons.empty()) return out;
    const auto& lines = data.line_samples->lines;
    const profile::SassFunction* function = data.sass_function ? &*data.sass_function : nullptr;
    const auto cited = cited_lines(finding, function);
    auto is_cited = [&](const profile::LineSamples* l) { return cited.count({l->location.file, l->location.line}) > 0; };
    std::vector<const profile::LineSamples*> ranked;
    for (const auto& line : lines)
        if (samples_of(line, reasons) > 0) ranked.push_back(&line);
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto* a, const auto* b) {
        if (is_cited(a) != is_cited(b)) return is_cited(a);
        return samples_of(*a, reasons) > samples_of(*b, reasons);
    });
    const double total = static_cast<double>(data.line_samples->samples);
    for (const profile::LineSamples* line : ranked) {
        if (out.size() == limit) break;
        if (samples_of(*line, reasons) / total < min_share) continue;
        const std::string place = line->location.file + ":" + std::to_string(line->location.line);
        std::string quoted = quoted_line(data.source_text, line->location.line);
        // A line of braces only (the kernel's closing "}", where its EXIT waits for outstanding
        // stores and atomics to drain) names no code to change: the lines that issued them do.
        if (!data.source_text.empty() && std::none_of(quoted.begin(), quoted.end(), [](unsigned char c) { return std::isalnum(c); }))
            continue;
        const std::string detail = describe(*line, reasons, data.line_samples->samples, function);
        out.push_back(text_evidence(Evidence::Kind::source, place, quoted.empty() ? detail : quoted + "  [" + detail + "]"));
        out.back().sampled = true;
    }
    return out;
}

void attach_line_evidence(Finding& finding, const ProfileData& data) {
    auto lines = line_evidence(finding, data);
    finding.evidence.insert(finding.evidence.begin(), lines.begin(), lines.end());
}

}  // namespace kp::analysis
