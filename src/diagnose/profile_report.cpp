#include "diagnose/profile_report.h"

#include <sstream>

#include <fmt/format.h>

#include "analysis/feedback.h"

namespace kp::diagnose {

namespace {

void render_offline_kernel(std::ostringstream& out, const analysis::Diagnosis& d) {
    out << fmt::format("kernel {} (offline: SASS/ptxas only, no roofline; gains estimated without counters)\n", short_kernel_name(d.kernel_name));
    if (d.findings.empty()) out << "  no findings\n";
    for (const auto& f : d.findings) {
        out << fmt::format("  [{}] {} (est. gain {}): {}\n", analysis::to_string(f.severity), f.tool,
                           analysis::format_percent(f.estimated_gain), f.summary);
        if (!f.guidance.empty()) out << "      -> " << f.guidance << "\n";
    }
}

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : ", ") + part;
    return out;
}

std::string cost_line(const ProfileReport& report) {
    std::string out = fmt::format("\nprofiling cost: {:.1f} s", report.seconds);
    if (report.cupti_runs > 0)
        out += fmt::format(", counters in the worker ({} collection(s), {} worker start(s))", report.cupti_runs, report.worker_starts);
    if (report.ncu_runs > 0) out += fmt::format(", {} ncu run(s)", report.ncu_runs);
    if (report.cupti_runs + report.ncu_runs > 0)
        out += report.counted_passes > 0 ? fmt::format(", {} replay passes", report.counted_passes)
                                         : fmt::format(", ~{} replay passes (estimated)", report.estimated_passes);
    std::vector<std::string> parts;
    for (const auto& [collector, seconds] : report.collector_seconds) parts.push_back(fmt::format("{} {:.1f} s", collector, seconds));
    if (!parts.empty()) out += " (" + joined(parts) + ")";
    std::vector<std::string> in_worker;
    for (const auto& [phase, seconds] : report.worker_seconds) in_worker.push_back(fmt::format("{} {:.2f} s", phase, seconds));
    if (!in_worker.empty()) out += "; in the counters worker: " + joined(in_worker);
    if (!report.timeline_source.empty()) out += "; timeline from the " + report.timeline_source;
    if (!report.cached.empty()) out += "; from the cache: " + joined(report.cached);
    return out + "\n";
}

}  // namespace

std::string short_kernel_name(const std::string& name) {
    auto paren = name.find('(');
    return paren == std::string::npos ? name : name.substr(0, paren);
}

std::string render_profile_text(const ProfileReport& report) {
    std::ostringstream out;
    out << fmt::format("kernelpro profile: {} ({})\n", report.task, report.candidate);
    out << "ceilings: " << report.ceilings_source << "\n";
    if (!report.environment_error.empty()) out << "note: " << report.environment_error << "\n";
    for (const auto& note : report.notes) out << "note: " << note << "\n";
    const bool call_view = report.call && analysis::shows_more_than_one_kernel(*report.call);
    if (call_view) out << "\n" << analysis::render_call_report(*report.call);
    for (const auto& k : report.kernels) {
        out << "\n";
        if (call_view)
            out << fmt::format("{} launch(es) of {}, {} of the call's kernel time:\n", k.launches, short_kernel_name(k.diagnosis.kernel_name),
                               analysis::format_percent(k.call_share));
        if (k.roofline_known && call_view) {
            // The task's floor is the call's (shown on its "Call:" line); against one launch of
            // several it would read as a kernel running at thousands of percent of the roofline.
            analysis::Diagnosis one = k.diagnosis;
            one.roofline.floor_seconds.reset();
            one.roofline.fraction_of_floor.reset();
            out << analysis::render_terminal_report(one);
        } else if (k.roofline_known) {
            out << analysis::render_terminal_report(k.diagnosis);
        } else {
            render_offline_kernel(out, k.diagnosis);
        }
        if (!k.stage2_dropped.empty()) {
            out << "  dropped for the budget:";
            for (const auto& t : k.stage2_dropped) out << " " << t;
            out << "\n";
        }
    }
    out << cost_line(report);
    return out.str();
}

nlohmann::json profile_report_json(const ProfileReport& report) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : report.kernels) {
        nlohmann::json j = analysis::to_json(k.diagnosis);
        j["roofline_known"] = k.roofline_known;
        j["stage2_tools"] = k.stage2_tools;
        j["stage2_dropped"] = k.stage2_dropped;
        j["launches"] = k.launches;
        j["grid"] = k.grid;
        j["block"] = k.block;
        j["call_seconds"] = k.call_seconds;
        j["call_share"] = k.call_share;
        kernels.push_back(std::move(j));
    }
    return {{"schema", "kernelpro.profile/1"},
            {"task", report.task},
            {"candidate", report.candidate},
            {"library", report.library},
            {"ceilings", report.ceilings_source},
            {"environment_error", report.environment_error},
            {"notes", report.notes},
            {"kernels", kernels},
            {"call", report.call ? analysis::to_json(*report.call) : nlohmann::json()},
            {"cost", {{"seconds", report.seconds}, {"ncu_runs", report.ncu_runs}, {"cupti_runs", report.cupti_runs},
                      {"worker_starts", report.worker_starts},
                      {"estimated_replay_passes", report.estimated_passes},
                      {"replay_passes", report.counted_passes > 0 ? nlohmann::json(report.counted_passes) : nlohmann::json()},
                      {"collector_seconds", report.collector_seconds}, {"worker_seconds", report.worker_seconds}, {"cached", report.cached},
                      {"timeline_source", report.timeline_source}}},
            {"commands", report.commands}};
}

std::string render_profile_feedback(const ProfileReport& report) {
    if (report.call && analysis::shows_more_than_one_kernel(*report.call)) return analysis::render_call_feedback(*report.call);
    std::string out;
    for (const auto& k : report.kernels) out += analysis::render_llm_feedback(k.diagnosis);
    return out;
}

}  // namespace kp::diagnose
