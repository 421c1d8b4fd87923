#include "autoprofiler/tree_evaluation.h"

#include <algorithm>
#include <set>

#include "analysis/feedback.h"

namespace kp::autoprofiler {

namespace {

// Tries one action against the budget; the collection's fixed cost is charged with the first
// action that runs in it.
bool take(const std::string& action, const CostTable& costs, const Budget& budget, TreeOutcome& out, bool& collection_started) {
    if (std::find(out.taken.begin(), out.taken.end(), action) != out.taken.end()) return true;
    ActionCost extra = costs.of(action);
    const bool in_collection = runs_in_collection(action, extra);
    if (in_collection && !collection_started) extra.seconds += costs.collection_seconds;
    if (out.cost.seconds + extra.seconds > budget.seconds + 1e-12 || out.cost.passes + extra.passes > budget.passes) {
        if (std::find(out.dropped.begin(), out.dropped.end(), action) == out.dropped.end()) out.dropped.push_back(action);
        return false;
    }
    if (in_collection) collection_started = true;
    out.cost.seconds += extra.seconds;
    out.cost.passes += extra.passes;
    out.taken.push_back(action);
    return true;
}

// A leaf measured as one collection: its actions not taken yet are taken together at that cost
// (its own start-up included), or dropped together when it does not fit.
void take_measured(const std::vector<std::string>& actions, const ActionCost& cost, const Budget& budget, TreeOutcome& out) {
    std::vector<std::string> fresh;
    for (const auto& a : actions)
        if (std::find(out.taken.begin(), out.taken.end(), a) == out.taken.end()) fresh.push_back(a);
    const bool fits = out.cost.seconds + cost.seconds <= budget.seconds + 1e-12 && out.cost.passes + cost.passes <= budget.passes;
    auto& into = fits ? out.taken : out.dropped;
    into.insert(into.end(), fresh.begin(), fresh.end());
    if (!fits) return;
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
    bool collection_started = false;
    std::string at = tree.root;
    // validate_tree refused cycles; the bound only guards a tree built in code without validation.
    for (size_t steps = 0; steps <= tree.nodes.size(); ++steps) {
        const TreeNode& node = tree.nodes.at(at);
        out.path.push_back(at);
        if (node.is_leaf() && node.measured_cost) {
            take_measured(node.collect, *node.measured_cost, budget, out);
            break;
        }
        for (const auto& a : node.collect) take(a, costs, budget, out, collection_started);
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
