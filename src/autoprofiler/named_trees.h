// The fixed configurations as trees, by name, so that every comparison runs through the same
// evaluation: "none" (no profiling), "roofline" (the roofline's counters only), "full" (today's
// fixed plan: the roofline and every tool) and "ncu-set-full" (`ncu --set full`: every tool but the
// timeline's, at the cost measured as a whole on the H200; trees/ncu-set-full-h200.toml).
// resolve_tree takes a name or a tree file.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "autoprofiler/catalogue.h"
#include "autoprofiler/profiling_tree.h"

namespace kp::autoprofiler {

std::vector<std::string> named_tree_names();
Result<ProfilingTree> resolve_tree(const std::string& name_or_file);
// Every named configuration, in named_tree_names() order (an error when a shipped one is missing).
Result<std::vector<std::pair<std::string, ProfilingTree>>> named_trees();

// Where the shipped cost tables and trees live: $KERNELPRO_AUTOPROFILER_DIR, share/kernelpro/autoprofiler.
Result<std::filesystem::path> locate_autoprofiler_directory();
// The cost table of a GPU ("h200") from that directory (costs/<gpu>.toml), or a file given by path.
Result<CostTable> resolve_cost_table(const std::string& gpu_or_file);

}  // namespace kp::autoprofiler
