#include "autoprofiler/profile_walk.h"

#include <algorithm>

#include "analysis/feedback.h"
#include "analysis/tool_registry.h"
#include "autoprofiler/named_trees.h"
#include "autoprofiler/profile_cost.h"

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

diagnose::Stage2Choice leaf_choice(const TreeChoice& choice, const analysis::ProfileData& kernel,
                                   const analysis::RooflineResult& roofline, const std::filesystem::path& counters_reply) {
    diagnose::KernelDiagnosis counted;  // what stage 1 knows: the roofline, the SASS, the task
    counted.diagnosis.kernel_name = kernel.kernel_name;
    counted.diagnosis.roofline = roofline;
    counted.roofline_known = true;
    counted.sass = kernel.sass;
    counted.task = kernel.task;
    const auto taken = evaluate_tree(choice.tree, record_of(counted, counters_reply), choice.costs, choice.budget, false).taken;
    return {tools_of_actions(taken), std::find(taken.begin(), taken.end(), kLinesAction) != taken.end()};
}

void collect_by_tree(const TreeChoice& choice, diagnose::ProfileOptions& options, const std::filesystem::path& counters_reply) {
    // PC sampling is switched on before the candidate's module loads when some node of the tree
    // takes it; a tree that tests samples in stage 2, only when a kernel's leaf takes it.
    const bool samples = std::any_of(choice.tree.nodes.begin(), choice.tree.nodes.end(), [](const auto& entry) {
        const auto& actions = entry.second.collect;
        return std::find(actions.begin(), actions.end(), kLinesAction) != actions.end();
    });
    if (!samples) options.collectors.erase("pcsampling");
    auto no_gpu = [&] {
        for (const char* c : {"ncu", "timeline", "pcsampling", "source", "occupancy"}) options.collectors.erase(c);
    };
    const auto root = choice.tree.nodes.find(choice.tree.root);
    if (root != choice.tree.nodes.end() && root->second.is_leaf()) {
        // A tree without a test (none, roofline, full, a learner's first tree) knows what it takes
        // before anything is counted (what fits the budget): nothing on the GPU when that needs no
        // worker, else one run with the tools' counters, the trace only for a tool that reads it.
        const auto taken = evaluate_tree(choice.tree, KernelRecord{}, choice.costs, choice.budget, false).taken;
        const bool on_gpu = std::any_of(taken.begin(), taken.end(), [&](const auto& a) { return runs_in_collection(a, choice.costs.of(a)); });
        const auto tools = tools_of_actions(taken);
        if (std::none_of(taken.begin(), taken.end(), reads_the_timeline)) options.collectors.erase("timeline");
        if (std::find(taken.begin(), taken.end(), kLinesAction) == taken.end()) options.collectors.erase("pcsampling");
        if (!on_gpu) no_gpu();
        if (!tools.empty() || !on_gpu) {
            options.tools = tools;
            options.stages = analysis::StagePlan::one_run;
            return;
        }
    } else if (root != choice.tree.nodes.end()) {
        // A tree that tests counts the roofline's collection first: when that does not fit the
        // budget, nothing runs on the GPU (the walk charges it, and drops every action that needs it).
        if (!fits(profile_cost({}, CollectionShape::roofline_first, choice.costs), choice.budget)) no_gpu();
    }
    options.tools = analysis::default_tool_registry().names();
    options.stage2_choice = [choice, counters_reply](const analysis::ProfileData& kernel, const analysis::RooflineResult& roofline) {
        return leaf_choice(choice, kernel, roofline, counters_reply);
    };
}

nlohmann::json to_json(const TreeOutcome& o) {
    nlohmann::json findings = nlohmann::json::array();
    for (const auto& f : o.findings) findings.push_back(analysis::to_json(f));
    return {{"leaf", o.leaf}, {"path", o.path}, {"taken", o.taken}, {"dropped", o.dropped},
            {"seconds", o.cost.seconds}, {"passes", o.cost.passes}, {"findings", findings}, {"feedback", o.feedback}};
}

}  // namespace kp::autoprofiler
