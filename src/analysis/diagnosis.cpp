#include "analysis/diagnosis.h"

#include <algorithm>

#include "analysis/line_evidence.h"

namespace kp::analysis {
namespace {

bool data_present(const DataNeeds& needs, const ProfileData& data) {
    if (needs.sass && !data.sass) return false;
    if (needs.timeline && !data.timeline) return false;
    // ptxas, occupancy and the source page are optional extras for every tool that lists them:
    // tools fall back to metrics. Metrics are checked by the tools themselves.
    return true;
}

}  // namespace

Result<Diagnosis> diagnose(const ProfileData& data, const ToolRegistry& registry, const DiagnosisOptions& options) {
    Diagnosis diagnosis;
    diagnosis.kernel_name = data.kernel_name;
    // Without counters there is no roofline: every tool whose data is present runs (the class cannot
    // pick), and with only a timeline only the timeline's tools do.
    const bool roofline_known = data.metrics.has_value();
    const bool timeline_only = !roofline_known && data.timeline;
    if (roofline_known) {
        auto roofline = classify_roofline(data);
        if (!roofline) return roofline.error();
        diagnosis.roofline = *roofline;
    } else {
        diagnosis.roofline.reason = "no ncu metrics: roofline not measured";
    }
    ToolContext context(data, diagnosis.roofline);

    std::vector<const MicroTool*> tools =
        options.gate_by_class && roofline_known ? registry.for_class(diagnosis.roofline.kind) : registry.all();
    for (const MicroTool* tool : tools) {
        if (!options.only_tools.empty() &&
            std::find(options.only_tools.begin(), options.only_tools.end(), tool->name()) == options.only_tools.end())
            continue;
        if (!data_present(tool->needs(), data)) {
            diagnosis.tools_without_data.emplace_back(tool->name());
            continue;
        }
        if (timeline_only && !tool->needs().timeline) continue;
        diagnosis.tools_run.emplace_back(tool->name());
        std::optional<Finding> finding = tool->diagnose(context);
        if (!finding) continue;
        finding->tool = std::string(tool->name());
        finding->estimated_gain = std::clamp(finding->estimated_gain, 0.0, 0.95);
        finding->severity = severity_for_gain(finding->estimated_gain);
        if (finding->estimated_gain < options.min_gain) continue;
        attach_line_evidence(*finding, data);  // the lines behind its cost, when PC sampling ran
        diagnosis.findings.push_back(std::move(*finding));
    }
    std::stable_sort(diagnosis.findings.begin(), diagnosis.findings.end(),
                     [](const Finding& a, const Finding& b) { return a.estimated_gain > b.estimated_gain; });
    if (diagnosis.findings.size() > options.max_findings) diagnosis.findings.resize(options.max_findings);
    return diagnosis;
}

}  // namespace kp::analysis
