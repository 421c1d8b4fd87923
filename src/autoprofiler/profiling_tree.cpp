#include "autoprofiler/profiling_tree.h"

#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "autoprofiler/catalogue.h"

namespace kp::autoprofiler {

namespace {

std::string at(const std::string& source, int line) { return fmt::format("{}:{}: ", source, line); }

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

Result<std::vector<std::string>> string_list(const toml::node* node, const std::string& source, const std::string& what) {
    std::vector<std::string> out;
    if (!node) return out;
    auto* array = node->as_array();
    if (!array) return make_error(at(source, line_of(*node)) + what + " must be a list of action names");
    for (auto& item : *array) {
        auto s = item.value<std::string>();
        if (!s) return make_error(at(source, line_of(item)) + what + " must hold strings");
        out.push_back(*s);
    }
    return out;
}

Result<TreeNode> parse_node(const std::string& name, const toml::table& t, const std::string& source) {
    static const std::set<std::string> keys = {"collect", "actions", "signal", "threshold", "above", "below",
                                               "max_findings", "max_evidence", "min_gain", "measured_cost"};
    TreeNode node;
    node.line = line_of(t);
    for (auto& [key, value] : t)
        if (!keys.count(std::string(key.str())))
            return make_error(at(source, line_of(value)) + fmt::format("node '{}': unknown key '{}'", name, key.str()));
    auto collect = string_list(t.get("collect"), source, "collect");
    if (!collect) return collect.error();
    auto actions = string_list(t.get("actions"), source, "actions");
    if (!actions) return actions.error();
    node.collect = *collect;
    // `actions` is the leaf's spelling of `collect`: what the leaf profiles.
    node.collect.insert(node.collect.end(), actions->begin(), actions->end());
    if (auto* s = t.get("signal")) {
        auto v = s->value<std::string>();
        if (!v) return make_error(at(source, line_of(*s)) + "signal must be a string");
        node.signal = *v;
        auto* threshold = t.get("threshold");
        if (!threshold || !threshold->is_number())
            return make_error(at(source, threshold ? line_of(*threshold) : node.line) + fmt::format("node '{}': a test needs a numeric threshold", name));
        node.threshold = threshold->value<double>().value_or(0);
        for (auto [branch, target] : {std::pair{"above", &node.above}, std::pair{"below", &node.below}}) {
            auto* b = t.get(branch);
            if (!b || !b->is_string())
                return make_error(at(source, b ? line_of(*b) : node.line) + fmt::format("node '{}': a test needs `{}` (a node name)", name, branch));
            *target = *b->value<std::string>();
        }
        if (t.get("actions")) return make_error(at(source, line_of(*t.get("actions"))) + fmt::format("node '{}': a test has `collect`, not leaf `actions`", name));
    } else {
        for (const char* k : {"threshold", "above", "below"})
            if (auto* n = t.get(k)) return make_error(at(source, line_of(*n)) + fmt::format("node '{}': `{}` without a `signal`", name, k));
    }
    if (auto* m = t.get("measured_cost")) {
        auto* cost = m->as_table();
        const double seconds = cost ? (*cost)["seconds"].value_or(-1.0) : -1.0;
        const int64_t passes = cost ? (*cost)["passes"].value_or(int64_t{-1}) : -1;
        if (!node.signal.empty()) return make_error(at(source, line_of(*m)) + fmt::format("node '{}': `measured_cost` belongs to a leaf", name));
        if (seconds < 0 || passes < 0)
            return make_error(at(source, line_of(*m)) + fmt::format("node '{}': measured_cost needs {{ seconds = S, passes = P }}, both >= 0", name));
        node.measured_cost = ActionCost{seconds, static_cast<int>(passes)};
    }
    node.rendering.max_findings = static_cast<int>(t["max_findings"].value_or(int64_t{node.rendering.max_findings}));
    node.rendering.max_evidence = static_cast<int>(t["max_evidence"].value_or(int64_t{node.rendering.max_evidence}));
    node.rendering.min_gain = t["min_gain"].value_or(node.rendering.min_gain);
    if (node.rendering.max_findings < 0 || node.rendering.max_evidence < 0 || node.rendering.min_gain < 0 || node.rendering.min_gain > 1)
        return make_error(at(source, node.line) + fmt::format("node '{}': max_findings, max_evidence >= 0 and min_gain in 0..1", name));
    return node;
}

}  // namespace

Result<ProfilingTree> parse_tree(const std::string& text, const std::string& source) {
    toml::table doc;
    try {
        doc = toml::parse(text, source);
    } catch (const toml::parse_error& e) {
        return make_error(at(source, static_cast<int>(e.source().begin.line)) + std::string(e.description()));
    }
    auto format = doc["format"].value<std::string>();
    if (!format) return make_error(at(source, 1) + fmt::format("`format = \"{}\"` is missing", kTreeFormat));
    if (*format != kTreeFormat)
        return make_error(at(source, line_of(*doc.get("format"))) + fmt::format("format '{}' is not '{}'", *format, kTreeFormat));
    ProfilingTree tree;
    tree.name = doc["name"].value_or(std::string());
    tree.root = doc["root"].value_or(std::string("root"));
    auto* nodes = doc["node"].as_table();
    if (!nodes || nodes->empty()) return make_error(at(source, 1) + "no [node.NAME] table");
    for (auto& [key, value] : *nodes) {
        auto* t = value.as_table();
        if (!t) return make_error(at(source, line_of(value)) + fmt::format("node '{}' must be a table", key.str()));
        auto node = parse_node(std::string(key.str()), *t, source);
        if (!node) return node.error();
        tree.nodes[std::string(key.str())] = std::move(*node);
    }
    if (auto status = validate_tree(tree, source); !status) return status.error();
    return tree;
}

Result<ProfilingTree> load_tree(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return make_error(path.string() + ": cannot read the tree file");
    std::stringstream text;
    text << in.rdbuf();
    return parse_tree(text.str(), path.string());
}

Status validate_tree(const ProfilingTree& tree, const std::string& source) {
    if (!tree.nodes.count(tree.root)) return make_error(at(source, 1) + fmt::format("root '{}' is not a node", tree.root));
    std::set<std::string> seen;
    // Depth-first from the root with the actions collected so far; a node reached twice is a
    // cycle or a shared subtree, both refused so that each node has one path (and one cost).
    struct Frame {
        std::string name;
        std::set<std::string> collected;
    };
    std::vector<Frame> stack{{tree.root, {}}};
    while (!stack.empty()) {
        Frame f = std::move(stack.back());
        stack.pop_back();
        const TreeNode& node = tree.nodes.at(f.name);
        if (!seen.insert(f.name).second) return make_error(at(source, node.line) + fmt::format("node '{}' is reached twice (a cycle or a shared child)", f.name));
        for (const auto& a : node.collect) {
            if (!is_known_action(a)) return make_error(at(source, node.line) + fmt::format("node '{}': unknown action '{}' (see `kernelpro autoprofile catalogue`)", f.name, a));
            f.collected.insert(a);
        }
        if (node.is_leaf()) continue;
        const SignalInfo* s = find_signal(node.signal);
        if (!s) return make_error(at(source, node.line) + fmt::format("node '{}': unknown signal '{}' (see `kernelpro autoprofile catalogue`)", f.name, node.signal));
        if (!s->needs.empty() && !f.collected.count(s->needs))
            return make_error(at(source, node.line) + fmt::format("node '{}': signal '{}' is measured by '{}', which is not collected on the way here", f.name, node.signal, s->needs));
        for (const auto* child : {&node.above, &node.below}) {
            if (!tree.nodes.count(*child)) return make_error(at(source, node.line) + fmt::format("node '{}': no node '{}'", f.name, *child));
            stack.push_back({*child, f.collected});
        }
    }
    for (const auto& [name, node] : tree.nodes)
        if (!seen.count(name)) return make_error(at(source, node.line) + fmt::format("node '{}' cannot be reached from the root", name));
    return {};
}

std::string to_toml(const ProfilingTree& tree) {
    std::ostringstream out;
    out << fmt::format("format = \"{}\"\n", kTreeFormat);
    if (!tree.name.empty()) out << fmt::format("name = \"{}\"\n", tree.name);
    out << fmt::format("root = \"{}\"\n", tree.root);
    auto list = [](const std::vector<std::string>& v) {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
        return s + "]";
    };
    // Breadth-first from the root, so the file reads top-down.
    std::vector<std::string> order{tree.root};
    for (size_t i = 0; i < order.size(); ++i) {
        const TreeNode& n = tree.nodes.at(order[i]);
        out << fmt::format("\n[node.{}]\n", order[i]);
        if (n.is_leaf()) {
            out << "actions = " << list(n.collect) << "\n";
            out << fmt::format("max_findings = {}\nmax_evidence = {}\nmin_gain = {}\n", n.rendering.max_findings, n.rendering.max_evidence,
                               n.rendering.min_gain);
            if (n.measured_cost)
                out << fmt::format("measured_cost = {{ seconds = {}, passes = {} }}\n", n.measured_cost->seconds, n.measured_cost->passes);
        } else {
            if (!n.collect.empty()) out << "collect = " << list(n.collect) << "\n";
            out << fmt::format("signal = \"{}\"\nthreshold = {}\nabove = \"{}\"\nbelow = \"{}\"\n", n.signal, n.threshold, n.above, n.below);
            order.push_back(n.above);
            order.push_back(n.below);
        }
    }
    return out.str();
}

ProfilingTree one_leaf_tree(std::string name, std::vector<std::string> actions) {
    ProfilingTree tree;
    tree.name = std::move(name);
    TreeNode leaf;
    leaf.collect = std::move(actions);
    tree.nodes["root"] = std::move(leaf);
    return tree;
}

}  // namespace kp::autoprofiler
