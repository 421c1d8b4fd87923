#include "analysis/feedback.h"

#include <cstdio>
#include <sstream>

namespace kp::analysis {
namespace {

std::string seconds_text(double seconds) {
    char buffer[32];
    if (seconds >= 1e-3) std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
    else std::snprintf(buffer, sizeof buffer, "%.3g us", seconds * 1e6);
    return buffer;
}

std::string_view evidence_kind(Evidence::Kind kind) {
    switch (kind) {
        case Evidence::Kind::metric: return "metric";
        case Evidence::Kind::sass: return "sass";
        case Evidence::Kind::source: return "source";
    }
    return "metric";
}

// "atomic_sum 99% (1 launch, 12.3 ms)"
std::string kernel_share_text(const CallKernel& k, const std::string& shown_name) {
    std::string text = shown_name + " " + format_percent(k.share) + " (" + std::to_string(k.launches) +
                       (k.launches == 1 ? " launch, " : " launches, ") + seconds_text(k.seconds);
    if (!k.grid.empty()) text += ", grid " + k.grid + " block " + k.block;
    return text + ")";
}

// "zero_output" from "zero_output(float *)": the kernel as people read it in a list.
std::string short_name(const std::string& name) {
    auto paren = name.find('(');
    return paren == std::string::npos ? name : name.substr(0, paren);
}

std::string finding_place(const CallFinding& f) {
    if (f.kernel_name.empty()) return "the call";
    return short_name(f.kernel_name) + ", " + format_percent(f.kernel_share) + " of the call";
}

// Source lines and instructions first: they tell the writer where to look; then numbers.
void write_evidence(std::ostringstream& out, const Finding& f, size_t limit) {
    size_t evidence = 0;
    for (Evidence::Kind kind : {Evidence::Kind::source, Evidence::Kind::sass, Evidence::Kind::metric}) {
        for (const Evidence& e : f.evidence) {
            if (e.kind != kind || evidence == limit) continue;
            ++evidence;
            out << "   evidence: " << e.name << " = " << e.value << "\n";
        }
    }
}

// "; task floor 136 us: the call runs at 33% of the roofline" (the floor is the whole call's).
std::string call_floor_text(const CallProfile& call) {
    if (!call.floor_seconds || call.gpu_seconds <= 0) return "";
    return "; task floor " + seconds_text(*call.floor_seconds) + ": the call runs at " +
           format_percent(*call.floor_seconds / call.gpu_seconds) + " of the roofline";
}

}  // namespace

bool shows_more_than_one_kernel(const CallProfile& call) {
    return call.kernels.size() > 1 || (call.kernels.size() == 1 && call.kernels.front().launches > 1);
}

std::string render_call_report(const CallProfile& call) {
    std::ostringstream out;
    out << "Call: " << call.launches << " kernel launch" << (call.launches == 1 ? "" : "es") << ", " << seconds_text(call.gpu_seconds)
        << " of kernel time" << call_floor_text(call) << "\n";
    for (const CallKernel& k : call.kernels) out << "  " << kernel_share_text(k, short_name(k.kernel_name)) << "\n";
    if (call.findings.empty()) {
        out << "Call findings: none above the gain floor\n";
        return out.str();
    }
    out << "Call findings (ranked by the share of the call's time a fix could save):\n";
    int rank = 1;
    for (const CallFinding& f : call.findings)
        out << "  " << rank++ << ". [~" << format_percent(f.call_gain) << " of the call] " << f.finding.tool << " on "
            << finding_place(f) << ": " << f.finding.summary << "\n";
    return out.str();
}

nlohmann::json to_json(const CallProfile& call) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const CallKernel& k : call.kernels)
        kernels.push_back({{"kernel", k.kernel_name}, {"grid", k.grid}, {"block", k.block}, {"launches", k.launches},
                           {"seconds", k.seconds}, {"share", k.share}});
    nlohmann::json findings = nlohmann::json::array();
    for (const CallFinding& f : call.findings) {
        nlohmann::json j = to_json(f.finding);
        j["kernel"] = f.kernel_name.empty() ? nlohmann::json() : nlohmann::json(f.kernel_name);
        j["kernel_share"] = f.kernel_share;
        j["call_gain"] = f.call_gain;
        findings.push_back(std::move(j));
    }
    nlohmann::json j = {{"gpu_seconds", call.gpu_seconds}, {"launches", call.launches}, {"kernels", kernels}, {"findings", findings}};
    if (call.floor_seconds && call.gpu_seconds > 0) {
        j["floor_s"] = *call.floor_seconds;
        j["fraction_of_floor"] = *call.floor_seconds / call.gpu_seconds;
    }
    return j;
}

std::string render_call_feedback(const CallProfile& call, const LlmFeedbackOptions& options) {
    std::ostringstream out;
    out << "Profile of the call: " << call.launches << " kernel launch" << (call.launches == 1 ? "" : "es") << ", "
        << seconds_text(call.gpu_seconds) << " of GPU time" << call_floor_text(call) << ":\n";
    for (const CallKernel& k : call.kernels) out << "- " << kernel_share_text(k, short_name(k.kernel_name)) << "\n";
    if (call.findings.empty()) {
        out << "No problem worth more than a few percent of the call's time was found.\n";
        return out.str();
    }
    size_t shown = 0;
    for (const CallFinding& f : call.findings) {
        if (shown == options.max_findings) break;
        out << ++shown << ". " << finding_place(f) << ": " << f.finding.summary << " (could save ~" << format_percent(f.call_gain)
            << " of the call's time)\n";
        write_evidence(out, f.finding, options.max_evidence_per_finding);
        out << "   fix: " << f.finding.guidance << "\n";
        if (auto remedies = render_remedies(f.finding.remedies); !remedies.empty()) out << "   " << remedies << "\n";
    }
    return out.str();
}

std::string render_terminal_report(const Diagnosis& d) {
    std::ostringstream out;
    const RooflineResult& r = d.roofline;
    out << "Kernel: " << d.kernel_name << "\n";
    out << "Roofline: " << to_string(r.kind) << " (" << r.bound_unit << ") - " << r.reason << "\n";
    out << "  time " << seconds_text(r.duration_seconds) << " at " << format_number(r.sm_clock_hz) << "Hz SM clock; "
        << format_number(r.achieved_flops_per_second) << "FLOP/s, DRAM " << format_bytes(r.dram_bytes_per_second) << "/s, "
        << "intensity " << format_number(r.arithmetic_intensity) << " FLOP/B\n";
    out << "  speed of light: DRAM " << format_percent(r.dram_sol) << ", L2 " << format_percent(r.l2_sol) << ", L1 "
        << format_percent(r.l1_sol) << ", FP32 " << format_percent(r.fp32_sol) << ", FP64 " << format_percent(r.fp64_sol)
        << ", tensor " << format_percent(r.tensor_sol) << "\n";
    if (r.floor_seconds)
        out << "  task floor " << seconds_text(*r.floor_seconds) << ": kernel runs at " << format_percent(*r.fraction_of_floor)
            << " of the roofline\n";
    if (d.findings.empty()) {
        out << "Findings: none above the gain floor\n";
        return out.str();
    }
    out << "Findings (ranked by estimated gain):\n";
    int rank = 1;
    for (const Finding& f : d.findings) {
        out << "  " << rank++ << ". [" << to_string(f.severity) << ", ~" << format_percent(f.estimated_gain) << " of time] "
            << f.tool << ": " << f.summary << "\n";
        for (const Evidence& e : f.evidence) out << "       " << e.name << " = " << e.value << "\n";
        out << "     -> " << f.guidance << "\n";
    }
    return out.str();
}

nlohmann::json to_json(const RooflineResult& r) {
    nlohmann::json j = {
        {"class", std::string(to_string(r.kind))}, {"bound_unit", r.bound_unit}, {"reason", r.reason},
        {"duration_s", r.duration_seconds}, {"sm_clock_hz", r.sm_clock_hz},
        {"flops", {{"fp32", r.flops.fp32}, {"fp64", r.flops.fp64}, {"fp16", r.flops.fp16}, {"tensor", r.flops.tensor}}},
        {"bytes", {{"dram", r.dram_bytes}, {"l2", r.l2_bytes}, {"l1", r.l1_bytes}}},
        {"achieved_flops_per_s", r.achieved_flops_per_second}, {"dram_bytes_per_s", r.dram_bytes_per_second},
        {"arithmetic_intensity", r.arithmetic_intensity},
        {"sol", {{"dram", r.dram_sol}, {"l2", r.l2_sol}, {"l1", r.l1_sol}, {"fp32", r.fp32_sol}, {"fp64", r.fp64_sol},
                 {"fp16", r.fp16_sol}, {"tensor", r.tensor_sol}, {"memory", r.memory_sol}, {"compute", r.compute_sol}}},
    };
    if (r.waves) j["waves"] = *r.waves;
    if (r.floor_seconds) j["floor_s"] = *r.floor_seconds;
    if (r.fraction_of_floor) j["fraction_of_floor"] = *r.fraction_of_floor;
    return j;
}

nlohmann::json to_json(const Finding& f) {
    nlohmann::json evidence = nlohmann::json::array();
    for (const Evidence& e : f.evidence) {
        evidence.push_back({{"kind", std::string(evidence_kind(e.kind))}, {"name", e.name}, {"value", e.value}});
        if (e.sampled) evidence.back()["sampled"] = true;
    }
    nlohmann::json remedies = nlohmann::json::array();
    for (const Remedy& r : f.remedies) remedies.push_back(to_json(r));
    return {{"tool", f.tool}, {"severity", std::string(to_string(f.severity))}, {"estimated_gain", f.estimated_gain},
            {"summary", f.summary}, {"guidance", f.guidance}, {"evidence", evidence}, {"remedies", remedies}};
}

Result<Finding> finding_from_json(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("tool") || !j["tool"].is_string()) return make_error("a finding needs a tool name");
    try {
        Finding f;
        f.tool = j["tool"].get<std::string>();
        // Older search records: the gain was "severity" (a number) and the text "message".
        if (j.contains("estimated_gain")) f.estimated_gain = j["estimated_gain"].get<double>();
        else if (j.contains("severity") && j["severity"].is_number()) f.estimated_gain = j["severity"].get<double>();
        const std::string severity = j.contains("severity") && j["severity"].is_string() ? j["severity"].get<std::string>() : "";
        f.severity = severity == "high"     ? Severity::high
                     : severity == "medium" ? Severity::medium
                     : severity == "low"    ? Severity::low
                                            : severity_for_gain(f.estimated_gain);
        f.summary = j.contains("summary") ? j.value("summary", "") : j.value("message", "");
        f.guidance = j.value("guidance", "");
        for (const auto& e : j.value("evidence", nlohmann::json::array())) {
            const std::string kind = e.value("kind", "metric");
            f.evidence.push_back({kind == "sass" ? Evidence::Kind::sass : kind == "source" ? Evidence::Kind::source : Evidence::Kind::metric,
                                  e.value("name", ""), e.value("value", ""), e.value("sampled", false)});
        }
        for (const auto& r : j.value("remedies", nlohmann::json::array()))
            if (auto remedy = remedy_from_json(r)) f.remedies.push_back(*remedy);
        return f;
    } catch (const nlohmann::json::exception& error) {
        return make_error(std::string("malformed finding: ") + error.what());
    }
}

std::string render_remedies(const std::vector<Remedy>& remedies) {
    std::string changes, moves;
    for (const Remedy& r : remedies) {
        const std::string change = std::string(rewrite_name(r.rewrite)) + " (" + rewrite_description(r.rewrite) + ")";
        if (changes.find(change) == std::string::npos) changes += (changes.empty() ? "" : "; ") + change;
        if (r.moves_a_parameter()) moves += (moves.empty() ? "" : ", ") + describe_move(r);
    }
    if (changes.empty()) return "";
    return "change: " + changes + (moves.empty() ? "" : "; tunables: " + moves);
}

std::string render_finding_for_prompt(const Finding& f) {
    std::string text = f.tool + ": " + f.summary;
    if (!f.guidance.empty()) text += ". Fix: " + f.guidance;
    if (auto remedies = render_remedies(f.remedies); !remedies.empty()) text += " [" + remedies + "]";
    return text;
}

nlohmann::json to_json(const Diagnosis& d) {
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding& f : d.findings) findings.push_back(to_json(f));
    return {{"kernel", d.kernel_name}, {"roofline", to_json(d.roofline)}, {"findings", findings},
            {"tools_run", d.tools_run}, {"tools_without_data", d.tools_without_data}};
}

std::string render_llm_feedback(const Diagnosis& d, const LlmFeedbackOptions& options) {
    std::ostringstream out;
    const RooflineResult& r = d.roofline;
    out << "Profile of " << d.kernel_name << ": " << to_string(r.kind);
    if (r.bound_unit != "latency") out << " (" << r.bound_unit << ")";
    out << ", " << seconds_text(r.duration_seconds);
    if (r.fraction_of_floor) out << ", " << format_percent(*r.fraction_of_floor) << " of the task's roofline";
    out << ".\n";
    if (d.findings.empty()) {
        out << "No problem worth more than a few percent of run time was found.\n";
        return out.str();
    }
    size_t shown = 0;
    for (const Finding& f : d.findings) {
        if (shown == options.max_findings) break;
        out << ++shown << ". " << f.summary << " (could save ~" << format_percent(f.estimated_gain) << " of kernel time)\n";
        write_evidence(out, f, options.max_evidence_per_finding);
        out << "   fix: " << f.guidance << "\n";
        if (auto remedies = render_remedies(f.remedies); !remedies.empty()) out << "   " << remedies << "\n";
    }
    return out.str();
}

}  // namespace kp::analysis
