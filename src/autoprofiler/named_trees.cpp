#include "autoprofiler/named_trees.h"

#include "common/resource_locator.h"

namespace kp::autoprofiler {

std::vector<std::string> named_tree_names() { return {"none", "roofline", "full", "ncu-set-full"}; }

Result<ProfilingTree> resolve_tree(const std::string& name) {
    if (name == "none") return one_leaf_tree("none", {});
    if (name == "roofline") return one_leaf_tree("roofline", {kRooflineAction});
    if (name == "full") {
        ProfilingTree tree = one_leaf_tree("full", action_catalogue());
        // Today's feedback shows up to three findings (LlmFeedbackOptions), evidence as the profile has it.
        tree.nodes["root"].rendering.max_evidence = 3;
        return tree;
    }
    if (name == "ncu-set-full") {  // measured on the H200: a shipped tree file, with its measured cost
        auto dir = locate_autoprofiler_directory();
        if (!dir) return dir.error();
        return load_tree(*dir / "trees" / "ncu-set-full-h200.toml");
    }
    if (!std::filesystem::exists(name)) return make_error("--tree " + name + ": neither a tree file nor one of none, roofline, full, ncu-set-full");
    return load_tree(name);
}

Result<std::vector<std::pair<std::string, ProfilingTree>>> named_trees() {
    std::vector<std::pair<std::string, ProfilingTree>> out;
    for (const auto& name : named_tree_names()) {
        auto tree = resolve_tree(name);
        if (!tree) return tree.error();
        out.emplace_back(name, std::move(*tree));
    }
    return out;
}

Result<std::filesystem::path> locate_autoprofiler_directory() {
    return locate_resource({"the autoprofiler's cost tables", "KERNELPRO_AUTOPROFILER_DIR", "", {"share/kernelpro/autoprofiler"}});
}

Result<CostTable> resolve_cost_table(const std::string& gpu_or_file) {
    if (gpu_or_file.find('/') != std::string::npos || gpu_or_file.ends_with(".toml")) return load_cost_table(gpu_or_file);
    auto dir = locate_autoprofiler_directory();
    if (!dir) return dir.error();
    return load_cost_table(*dir / "costs" / (gpu_or_file + ".toml"));
}

}  // namespace kp::autoprofiler
