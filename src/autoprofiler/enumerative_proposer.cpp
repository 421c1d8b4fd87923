// The enumerative proposer (tree_edit.h): every single edit over the signal and action catalogues.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "autoprofiler/catalogue.h"
#include "autoprofiler/tree_edit.h"

namespace kp::autoprofiler {

namespace {

// Actions collected on the way to `target` (excluding the target's own).
std::set<std::string> collected_before(const ProfilingTree& tree, const std::string& target) {
    std::vector<std::pair<std::string, std::set<std::string>>> stack{{tree.root, {}}};
    while (!stack.empty()) {
        auto [name, got] = stack.back();
        stack.pop_back();
        if (name == target) return got;
        const TreeNode& n = tree.nodes.at(name);
        got.insert(n.collect.begin(), n.collect.end());
        if (!n.is_leaf()) {
            stack.push_back({n.above, got});
            stack.push_back({n.below, got});
        }
    }
    return {};
}

std::string fresh_name(const ProfilingTree& tree, const std::string& base) {
    for (int i = 1;; ++i) {
        std::string name = fmt::format("{}_{}", base, i);
        if (!tree.nodes.count(name)) return name;
    }
}

// Thresholds worth trying for a signal: midpoints between the distinct training values, at most
// kMaxThresholds of them, evenly spread (keeps a round to a few thousand candidate trees).
constexpr size_t kMaxThresholds = 6;
std::vector<double> thresholds_for(const std::string& signal, const std::vector<KernelRecord>& train) {
    std::set<double> values;
    for (const auto& k : train)
        if (auto it = k.signals.find(signal); it != k.signals.end()) values.insert(it->second);
    std::vector<double> v(values.begin(), values.end()), out;
    for (size_t i = 1; i < v.size(); ++i) out.push_back(0.5 * (v[i - 1] + v[i]));
    if (out.size() <= kMaxThresholds) return out;
    std::vector<double> spread;
    for (size_t i = 0; i < kMaxThresholds; ++i) spread.push_back(out[i * (out.size() - 1) / (kMaxThresholds - 1)]);
    return spread;
}

class EnumerativeProposer : public Proposer {
public:
    explicit EnumerativeProposer(int max_leaves) : max_leaves_(max_leaves) {}
    std::string name() const override { return "enumerative"; }

    Result<std::vector<Edit>> propose(const ProposalContext& c) override {
        std::vector<Edit> edits;
        const ProfilingTree& tree = c.tree;
        const auto actions = action_catalogue();
        int leaves = 0;
        for (const auto& [name, node] : tree.nodes) leaves += node.is_leaf();
        for (const auto& [name, node] : tree.nodes) {
            if (!node.is_leaf()) {
                for (double t : thresholds_for(node.signal, c.train)) {
                    if (t == node.threshold) continue;
                    Edit e{"REWRITE", fmt::format("node {}: threshold of {} {} -> {}", name, node.signal, node.threshold, t), tree};
                    e.tree.nodes[name].threshold = t;
                    edits.push_back(std::move(e));
                }
                continue;
            }
            const auto before = collected_before(tree, name);
            for (const auto& a : actions) {
                const bool has = std::find(node.collect.begin(), node.collect.end(), a) != node.collect.end();
                if (before.count(a)) continue;
                Edit e{"REWRITE", fmt::format("leaf {}: {} {}", name, has ? "remove" : "add", a), tree};
                auto& list = e.tree.nodes[name].collect;
                if (has) list.erase(std::find(list.begin(), list.end(), a));
                else list.push_back(a);
                e.tree.nodes[name].measured_cost.reset();  // measured for the actions it had
                edits.push_back(std::move(e));
            }
            for (int m : {1, 2, 3, 5}) {
                if (m == node.rendering.max_findings) continue;
                Edit e{"REWRITE", fmt::format("leaf {}: max_findings {} -> {}", name, node.rendering.max_findings, m), tree};
                e.tree.nodes[name].rendering.max_findings = m;
                edits.push_back(std::move(e));
            }
            if (leaves >= max_leaves_) continue;
            // Splits that pair a signal with a tool it is evidence of come first, the tool it is
            // named first for before the others: the learner keeps the first of equally good
            // edits, so a tie goes to the pairing with a reason behind it.
            constexpr size_t kUnlinked = 1000;
            auto rank = [](const SignalInfo& signal, const std::string& action) {
                const auto& tools = signal.evidence_for;
                const auto it = std::find(tools.begin(), tools.end(), tool_of_action(action));
                return it == tools.end() ? kUnlinked : static_cast<size_t>(it - tools.begin());
            };
            const auto& signals = signal_catalogue();
            std::set<size_t> ranks;
            std::vector<std::vector<double>> thresholds;  // per signal, the same for every rank
            for (const auto& signal : signals) {
                for (const auto& a : actions) ranks.insert(rank(signal, a));
                thresholds.push_back(thresholds_for(signal.name, c.train));
            }
            for (size_t r : ranks)
                for (size_t i = 0; i < signals.size(); ++i) {
                    const SignalInfo& signal = signals[i];
                    const bool measured = !signal.needs.empty() && !before.count(signal.needs);
                    for (double t : thresholds[i])
                        for (const auto& a : actions)
                            if (rank(signal, a) == r)
                                for (bool on_above : {true, false}) add_split(edits, tree, name, node, signal, measured, t, a, on_above, before);
                }
        }
        return edits;
    }

private:
    static void add_split(std::vector<Edit>& edits, const ProfilingTree& tree, const std::string& name, const TreeNode& leaf,
                          const SignalInfo& signal, bool measured, double threshold, const std::string& action, bool on_above,
                          const std::set<std::string>& before) {
        if (before.count(action) || std::find(leaf.collect.begin(), leaf.collect.end(), action) != leaf.collect.end()) return;
        if (measured && action == signal.needs) return;  // the test collects it anyway
        Edit e{"SPLIT", fmt::format("leaf {}: test {} >= {}, {} side adds {}", name, signal.name, threshold, on_above ? "above" : "below", action), tree};
        TreeNode test;
        TreeNode child = leaf;
        child.measured_cost.reset();  // measured for the leaf as it was
        if (measured) {
            test.collect.push_back(signal.needs);
            child.collect.erase(std::remove(child.collect.begin(), child.collect.end(), signal.needs), child.collect.end());
        }
        test.signal = signal.name;
        test.threshold = threshold;
        test.above = fresh_name(tree, "n");
        ProfilingTree& t = e.tree;
        t.nodes[test.above] = child;
        test.below = fresh_name(t, "n");
        t.nodes[test.below] = child;
        t.nodes[on_above ? test.above : test.below].collect.push_back(action);
        t.nodes[name] = test;
        edits.push_back(std::move(e));
    }
    int max_leaves_;
};

}  // namespace

std::unique_ptr<Proposer> enumerative_proposer(int max_leaves) { return std::make_unique<EnumerativeProposer>(max_leaves); }

}  // namespace kp::autoprofiler
