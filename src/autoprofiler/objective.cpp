#include "autoprofiler/objective.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace kp::autoprofiler {

bool is_hit(const KernelRecord& kernel, const TreeOutcome& outcome) {
    if (kernel.expect == "none")
        return std::none_of(outcome.findings.begin(), outcome.findings.end(),
                            [&](const analysis::Finding& f) { return f.estimated_gain > kernel.max_gain; });
    return std::any_of(outcome.findings.begin(), outcome.findings.end(), [&](const analysis::Finding& f) { return f.tool == kernel.expect; });
}

bool has_labelled_lines(const KernelRecord& kernel) { return !kernel.lines.empty() && kernel.expect != "none"; }

bool is_line_hit(const KernelRecord& kernel, const TreeOutcome& outcome) {
    if (!has_labelled_lines(kernel)) return false;
    for (const auto& f : outcome.findings) {
        if (f.tool != kernel.expect) continue;
        for (const auto& e : f.evidence) {
            // "…/<kernel>.cu:<line>": the candidate's file and a labelled line.
            const auto colon = e.name.rfind(':');
            if (e.kind != analysis::Evidence::Kind::source || colon == std::string::npos) continue;
            if (std::filesystem::path(e.name.substr(0, colon)).stem() != kernel.name) continue;
            const std::string number = e.name.substr(colon + 1);
            if (number.empty() || !std::all_of(number.begin(), number.end(), [](unsigned char c) { return std::isdigit(c); })) continue;
            if (std::find(kernel.lines.begin(), kernel.lines.end(), std::stoi(number)) != kernel.lines.end()) return true;
        }
    }
    return false;
}

double add_costs(Score& s, const std::vector<TreeOutcome>& outcomes, const Budget& budget) {
    s.kernels = static_cast<int>(outcomes.size());
    if (outcomes.empty()) return 0;
    for (const auto& o : outcomes) {
        s.mean_seconds += o.cost.seconds / s.kernels;
        s.mean_passes += static_cast<double>(o.cost.passes) / s.kernels;
    }
    const bool in_passes = budget.passes < (1 << 20);
    return in_passes ? s.mean_passes / std::max(1, budget.passes) : (budget.seconds < 1e9 ? s.mean_seconds / budget.seconds : s.mean_seconds);
}

namespace {

class DiagnosisHitRate : public Objective {
public:
    DiagnosisHitRate(double cost_weight, double line_weight) : cost_weight_(cost_weight), line_weight_(line_weight) {}
    std::string name() const override { return "diagnosis_hit_rate"; }
    Score score(const std::vector<KernelRecord>& kernels, const std::vector<TreeOutcome>& outcomes, const Budget& budget) const override {
        Score s;
        const double share = add_costs(s, outcomes, budget);
        if (kernels.empty()) return s;
        for (size_t i = 0; i < kernels.size(); ++i) {
            s.hits += is_hit(kernels[i], outcomes[i]);
            if (!has_labelled_lines(kernels[i])) continue;
            ++s.lined;
            s.line_hits += is_line_hit(kernels[i], outcomes[i]);
        }
        s.hit_rate = static_cast<double>(s.hits) / s.kernels;
        const double line_rate = s.lined ? static_cast<double>(s.line_hits) / s.lined : 0.0;
        s.value = s.hit_rate + line_weight_ * line_rate - cost_weight_ * share;
        return s;
    }

private:
    double cost_weight_, line_weight_;
};

}  // namespace

std::unique_ptr<Objective> diagnosis_hit_rate(double cost_weight, double line_weight) {
    return std::make_unique<DiagnosisHitRate>(cost_weight, line_weight);
}

}  // namespace kp::autoprofiler
