#include "autoprofiler/profile_walk.h"

#include "analysis/feedback.h"
#include "autoprofiler/named_trees.h"

namespace kp::autoprofiler {

Result<TreeChoice> choose_tree(const std::string& name_or_file, const std::string& costs_gpu_or_file, Budget budget) {
    auto tree = resolve_tree(name_or_file);
    if (!tree) return tree.error();
    auto costs = resolve_cost_table(costs_gpu_or_file);
    if (!costs) return costs.error();
    return TreeChoice{name_or_file, std::move(*tree), std::move(*costs), budget};
}

std::vector<TreeOutcome> walk_profile(const TreeChoice& choice, const diagnose::ProfileReport& report,
                                      const std::filesystem::path& counters_reply) {
    std::vector<TreeOutcome> out;
    for (const auto& k : report.kernels) {
        KernelRecord record;
        record.name = k.diagnosis.kernel_name;
        record.diagnosis = k.diagnosis;
        record.signals = signals_of(k.diagnosis, k.roofline_known, counters_reply);
        out.push_back(evaluate_tree(choice.tree, record, choice.costs, choice.budget));
    }
    return out;
}

nlohmann::json to_json(const TreeOutcome& o) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : o.findings) findings.push_back(analysis::to_json(f));
    return {{"leaf", o.leaf}, {"path", o.path}, {"taken", o.taken}, {"dropped", o.dropped},
            {"seconds", o.cost.seconds}, {"passes", o.cost.passes}, {"findings", findings}, {"feedback", o.feedback}};
}

}  // namespace kp::autoprofiler
