// A profiling tree applied to a live profile: what `profile --tree` prints and what `optimize
// --profile-tree` hands its proposers. One place resolves the tree, its cost table and budget,
// and walks it for every kernel of a profile report.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "autoprofiler/profiling_tree.h"
#include "autoprofiler/tree_evaluation.h"
#include "common/result.h"
#include "diagnose/profile_report.h"

namespace kp::autoprofiler {

struct TreeChoice {
    std::string name;  // as given: a file or none | roofline | full
    ProfilingTree tree;
    CostTable costs;
    Budget budget;
};

Result<TreeChoice> choose_tree(const std::string& name_or_file, const std::string& costs_gpu_or_file, Budget budget = {});

// One outcome per kernel of the report, in its order. The launch facts the tree's static signals
// test (registers, local and shared memory) come from the worker's counters reply, when there is one.
std::vector<TreeOutcome> walk_profile(const TreeChoice& choice, const diagnose::ProfileReport& report,
                                      const std::filesystem::path& counters_reply);

nlohmann::json to_json(const TreeOutcome& outcome);

}  // namespace kp::autoprofiler
