#include "autoprofiler/profile_walk.h"

#include <algorithm>

#include "analysis/feedback.h"
#include "analysis/tool_registry.h"
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
    for (const auto& k : report.kernels) out.push_back(evaluate_tree(choice.tree, record_of(k, counters_reply), choice.costs, choice.budget));
    return out;
}

std::vector<std::string> leaf_tools(const TreeChoice& choice, const analysis::ProfileData& kernel,
                                    const analysis::RooflineResult& roofline, const std::filesystem::path& counters_reply) {
    diagnose::KernelDiagnosis counted;  // what stage 1 knows: the roofline, the SASS, the task
    counted.diagnosis.kernel_name = kernel.kernel_name;
    counted.diagnosis.roofline = roofline;
    counted.roofline_known = true;
    counted.sass = kernel.sass;
    counted.task = kernel.task;
    return tools_of_actions(evaluate_tree(choice.tree, record_of(counted, counters_reply), choice.costs, choice.budget, false).taken);
}

void collect_by_tree(const TreeChoice& choice, diagnose::ProfileOptions& options, const std::filesystem::path& counters_reply) {
    // PC sampling must be on before the candidate's module loads, in the first collection, before
    // any test of the tree is known: it runs when some node of the tree takes it (exactly what a
    // one-leaf tree asks for; a tree that tests may pay for samples its leaf then does not show).
    const bool samples = std::any_of(choice.tree.nodes.begin(), choice.tree.nodes.end(), [](const auto& entry) {
        const auto& actions = entry.second.collect;
        return std::find(actions.begin(), actions.end(), kLinesAction) != actions.end();
    });
    if (!samples) options.collectors.erase("pcsampling");
    // A tree without a test (none, roofline, full, a learner's first tree) knows its tools before
    // anything is counted: the usual plan collects them, in one run when they fit the budget.
    const auto root = choice.tree.nodes.find(choice.tree.root);
    if (root != choice.tree.nodes.end() && root->second.is_leaf()) {
        auto tools = tools_of_actions(root->second.collect);
        if (!tools.empty()) {
            options.tools = std::move(tools);
            return;
        }
    }
    options.tools = analysis::default_tool_registry().names();
    options.stage2_tools = [choice, counters_reply](const analysis::ProfileData& kernel, const analysis::RooflineResult& roofline) {
        return leaf_tools(choice, kernel, roofline, counters_reply);
    };
}

nlohmann::json to_json(const TreeOutcome& o) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : o.findings) findings.push_back(analysis::to_json(f));
    return {{"leaf", o.leaf}, {"path", o.path}, {"taken", o.taken}, {"dropped", o.dropped},
            {"seconds", o.cost.seconds}, {"passes", o.cost.passes}, {"findings", findings}, {"feedback", o.feedback}};
}

}  // namespace kp::autoprofiler
