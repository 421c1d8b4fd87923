#include "analysis/call_profile.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "profile/kernel_names.h"

namespace kp::analysis {

std::vector<LaunchGroup> group_launches(const std::vector<KernelLaunch>& launches) {
    // In first-seen order, so equal times keep the call's order.
    std::vector<LaunchGroup> groups;
    std::vector<std::vector<size_t>> members;
    std::map<std::tuple<std::string, std::string, std::string>, size_t> index;
    for (size_t i = 0; i < launches.size(); ++i) {
        const KernelLaunch& l = launches[i];
        auto [it, inserted] = index.try_emplace({l.kernel_name, l.grid, l.block}, groups.size());
        if (inserted) {
            groups.push_back({l.kernel_name, l.grid, l.block, 0, 0, i});
            members.emplace_back();
        }
        LaunchGroup& g = groups[it->second];
        g.launches++;
        g.seconds += l.seconds;
        members[it->second].push_back(i);
    }
    for (size_t g = 0; g < groups.size(); ++g) {
        auto& m = members[g];
        std::stable_sort(m.begin(), m.end(), [&](size_t a, size_t b) { return launches[a].seconds < launches[b].seconds; });
        groups[g].representative = m[(m.size() - 1) / 2];
    }
    std::stable_sort(groups.begin(), groups.end(), [](const LaunchGroup& a, const LaunchGroup& b) { return a.seconds > b.seconds; });
    return groups;
}

void complete_from_timeline(std::vector<LaunchGroup>& groups, const gpu::TimelineSummary& timeline) {
    const double calls = std::max(1, timeline.calls);
    for (const gpu::KernelSummary& k : timeline.kernels) {
        LaunchGroup* only = nullptr;
        int matches = 0;
        for (auto& g : groups)
            if (profile::same_kernel(g.kernel_name, k.name)) only = &g, ++matches;
        if (matches != 1) continue;
        const int traced = static_cast<int>(std::lround(k.launches_per_call));
        if (traced <= only->launches) continue;
        only->launches = traced;
        only->seconds = static_cast<double>(k.duration.total_ns) * 1e-9 / calls;
    }
    std::stable_sort(groups.begin(), groups.end(), [](const LaunchGroup& a, const LaunchGroup& b) { return a.seconds > b.seconds; });
}

bool judges_the_call(const MicroTool& tool) {
    const DataNeeds needs = tool.needs();
    return needs.timeline && needs.metrics.empty() && !needs.sass && !needs.ptxas && !needs.source_page && !needs.occupancy;
}

namespace {

bool is_call_finding(const Finding& f, const ToolRegistry& registry) {
    const MicroTool* tool = registry.find(f.tool);
    return tool && judges_the_call(*tool);
}

}  // namespace

CallProfile profile_call(std::vector<CallKernel> kernels, const std::vector<const Diagnosis*>& diagnoses, const ToolRegistry& registry,
                         const CallProfileOptions& options) {
    CallProfile call;
    for (const auto& k : kernels) {
        call.gpu_seconds += k.seconds;
        call.launches += k.launches;
    }
    for (auto& k : kernels) k.share = call.gpu_seconds > 0 ? k.seconds / call.gpu_seconds : 0;
    for (const Diagnosis* d : diagnoses)
        if (d && d->roofline.floor_seconds) {
            call.floor_seconds = d->roofline.floor_seconds;
            break;
        }

    std::vector<CallFinding> findings;
    bool call_level_seen = false;
    for (size_t i = 0; i < kernels.size() && i < diagnoses.size(); ++i) {
        if (!diagnoses[i]) continue;
        for (const Finding& f : diagnoses[i]->findings) {
            if (is_call_finding(f, registry)) {
                // Every kernel sees the same timeline, so each reports the same call-level finding.
                if (call_level_seen) continue;
                call_level_seen = true;
                findings.push_back({f, "", 1.0, f.estimated_gain});
                continue;
            }
            findings.push_back({f, kernels[i].kernel_name, kernels[i].share, f.estimated_gain * kernels[i].share});
        }
    }
    std::erase_if(findings, [&](const CallFinding& f) { return f.call_gain < options.min_call_gain; });
    std::stable_sort(findings.begin(), findings.end(), [&](const CallFinding& a, const CallFinding& b) {
        const bool a_small = a.kernel_share < options.min_headline_share, b_small = b.kernel_share < options.min_headline_share;
        if (a_small != b_small) return !a_small;
        return a.call_gain > b.call_gain;
    });
    if (findings.size() > options.max_findings) findings.resize(options.max_findings);
    call.findings = std::move(findings);

    std::stable_sort(kernels.begin(), kernels.end(), [](const CallKernel& a, const CallKernel& b) { return a.share > b.share; });
    call.kernels = std::move(kernels);
    return call;
}

}  // namespace kp::analysis
