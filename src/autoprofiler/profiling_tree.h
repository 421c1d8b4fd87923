// A profiling tree (docs/autoprofiler.md): internal nodes test one cheap signal against a
// threshold, leaves list the profiling actions to take and how much of their findings to show.
// Nodes are named and flat in the TOML file (easier to read and diff than nesting); `root` names
// the first. A node may `collect` actions before its test, so that a metric signal is known there.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autoprofiler/catalogue.h"
#include "common/result.h"

namespace kp::autoprofiler {

inline constexpr const char* kTreeFormat = "kernelpro.profiling-tree/1";

struct Rendering {
    int max_findings = 3;
    int max_evidence = 2;         // evidence lines per finding
    double min_gain = 0.05;       // findings below this share of kernel time are not shown
};

struct TreeNode {
    std::vector<std::string> collect;  // actions taken when the node is reached (internal nodes and leaves)
    // Internal node: signal >= threshold goes to `above`, else (or unknown) to `below`.
    std::string signal;
    double threshold = 0;
    std::string above, below;
    Rendering rendering;               // leaves only
    // Leaves only: the leaf's actions are one collection whose cost was measured as a whole (e.g.
    // `ncu --set full`); charged instead of the actions' additive costs, all or nothing.
    std::optional<ActionCost> measured_cost;
    int line = 0;                      // where it was defined (0: built in code)
    bool is_leaf() const { return signal.empty(); }
};

struct ProfilingTree {
    std::string name;
    std::string root = "root";
    std::map<std::string, TreeNode> nodes;
};

// Parses and validates a tree; errors read "FILE:LINE: what is wrong".
Result<ProfilingTree> parse_tree(const std::string& text, const std::string& source_name);
Result<ProfilingTree> load_tree(const std::filesystem::path& path);
// Structure and names against the catalogues: every reference resolves, no cycles, no
// unreachable node, every action and signal is known, and a metric signal is only tested where an
// action collected on the path (or at the node) measures it.
Status validate_tree(const ProfilingTree& tree, const std::string& source_name);
std::string to_toml(const ProfilingTree& tree);
// A tree of one leaf with these actions.
ProfilingTree one_leaf_tree(std::string name, std::vector<std::string> actions);

}  // namespace kp::autoprofiler
