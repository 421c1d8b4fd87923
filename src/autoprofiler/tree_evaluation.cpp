#include "autoprofiler/tree_evaluation.h"

#include <algorithm>
#include <set>

#include "analysis/feedback.h"
#include "autoprofiler/profile_cost.h"

namespace kp::autoprofiler {

bool fits(const ActionCost& cost, const Budget& budget) {
    return cost.seconds <= budget.seconds + 1e-12 && cost.passes <= budget.passes;
}

namespace {

// Tries one action against the budget: what the profile costs with it (profile_cost: counters
// share passes, the worker starts once) must fit. With `gpu` off (the forced first collection
// does not fit) only actions that need no worker are taken.
bool take(const std::string& action, const CostTable& costs, CollectionShape shape, bool gpu, const Budget& budget, TreeOutcome& out) {
    if (std::find(out.taken.begin(), out.taken.end(), action) != out.taken.end()) return true;
    auto with = out.taken;
    with.push_back(action);
    const ActionCost cost = profile_cost(with, shape, costs);
    if ((!gpu && runs_in_collection(action, costs.of(action))) || !fits(cost, budget)) {
        if (std::find(out.dropped.begin(), out.dropped.end(), action) == out.dropped.end()) out.dropped.push_back(action);
        return false;
    }
    out.taken = std::move(with);
    out.cost = cost;
    return true;
}

// A leaf measured as one collection: its actions not taken yet are taken together at that cost
// (its own start-up included), or dropped together when it does not fit.
void take_measured(const std::vector<std::string>& actions, const ActionCost& cost, const Budget& budget, TreeOutcome& out) {
    std::vector<std::string> fresh;
    for (const auto& a : actions)
        if (std::find(out.taken.begin(), out.taken.end(), a) == out.taken.end()) fresh.push_back(a);
    const bool fit = fits({out.cost.seconds + cost.seconds, out.cost.passes + cost.passes}, budget);
    auto& into = fit ? out.taken : out.dropped;
    into.insert(into.end(), fresh.begin(), fresh.end());
    if (!fit) return;
    out.cost.seconds += cost.seconds;
    out.cost.passes += cost.passes;
}

std::string render(const KernelRecord& kernel, const std::vector<analysis::Finding>& shown, bool roofline, const Rendering& r) {
    analysis::Diagnosis d = kernel.diagnosis;
    d.findings = shown;
    analysis::LlmFeedbackOptions options;
    options.max_findings = static_cast<size_t>(r.max_findings);
    options.max_evidence_per_finding = static_cast<size_t>(r.max_evidence);
    std::string text = analysis::render_llm_feedback(d, options);
    if (roofline) return text;
    // Without the roofline's counters its class and time are not known: the first line goes.
    auto eol = text.find('\n');
    return "Profile of " + kernel.diagnosis.kernel_name + " (the roofline is not in this leaf's actions: class and time not shown).\n" + (eol == std::string::npos ? "" : text.substr(eol + 1));
}

}  // namespace

TreeOutcome evaluate_tree(const ProfilingTree& tree, const KernelRecord& kernel, const CostTable& costs, const Budget& budget,
                          bool render_text) {
    TreeOutcome out;
    std::string at = tree.root;
    // A tree that tests counts the roofline's collection first, whatever it takes (as a live profile
    // does): charged at the root; when it does not fit, nothing runs on the GPU.
    const CollectionShape shape = tree.nodes.at(tree.root).is_leaf() ? CollectionShape::one_run : CollectionShape::roofline_first;
    bool gpu = true;
    if (shape == CollectionShape::roofline_first) {
        const ActionCost forced = profile_cost({}, shape, costs);
        gpu = fits(forced, budget);
        if (gpu) out.cost = forced;
    }
    // validate_tree refused cycles; the bound only guards a tree built in code without validation.
    for (size_t steps = 0; steps <= tree.nodes.size(); ++steps) {
        const TreeNode& node = tree.nodes.at(at);
        out.path.push_back(at);
        if (node.is_leaf() && node.measured_cost) {
            take_measured(node.collect, *node.measured_cost, budget, out);
            break;
        }
        for (const auto& a : node.collect) take(a, costs, shape, gpu, budget, out);
        if (node.is_leaf()) break;
        const SignalInfo* s = find_signal(node.signal);
        const bool known = s && (s->needs.empty() || std::find(out.taken.begin(), out.taken.end(), s->needs) != out.taken.end());
        auto value = kernel.signals.find(node.signal);
        const bool above = known && value != kernel.signals.end() && value->second >= node.threshold;
        at = above ? node.above : node.below;
    }
    out.leaf = out.path.back();
    const Rendering& rendering = tree.nodes.at(out.leaf).rendering;
    const auto taken_tools = tools_of_actions(out.taken);
    const std::set<std::string> tools(taken_tools.begin(), taken_tools.end());
    // The lines a finding quotes from the call's PC samples exist only when the leaf sampled.
    const bool sampled = std::find(out.taken.begin(), out.taken.end(), kLinesAction) != out.taken.end();
    for (const auto& f : kernel.diagnosis.findings) {
        if (static_cast<int>(out.findings.size()) == rendering.max_findings) break;
        if (!tools.count(f.tool) || f.estimated_gain < rendering.min_gain) continue;
        out.findings.push_back(f);
        if (!sampled) std::erase_if(out.findings.back().evidence, [](const analysis::Evidence& e) { return e.sampled; });
    }
    const bool roofline = std::find(out.taken.begin(), out.taken.end(), kRooflineAction) != out.taken.end();
    if (render_text) out.feedback = render(kernel, out.findings, roofline, rendering);
    return out;
}

}  // namespace kp::autoprofiler
