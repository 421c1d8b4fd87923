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
#include "diagnose/profile_options.h"
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

// Makes a live profile collect what the tree's leaves take instead of the fixed plan: the first
// collection holds the roofline's counters and the launch facts, then stage 2, in the same worker,
// counts only what the tools of each kernel's leaf need (and samples PCs when a leaf takes them). The tree's static signals are read from `counters_reply`, the
// first collection's reply (options.counters_reply_file, which the caller sets). Every tool still
// diagnoses (options.tools: all of them); walk_profile then shows the leaf's findings, walked on
// the same signals, so from the same leaf.
void collect_by_tree(const TreeChoice& choice, diagnose::ProfileOptions& options, const std::filesystem::path& counters_reply);

// What the tree's leaf takes for one kernel, from its first collection and roofline class: its
// tools, and whether it samples PCs (lines:pc_sampling on the walked path).
diagnose::Stage2Choice leaf_choice(const TreeChoice& choice, const analysis::ProfileData& kernel,
                                   const analysis::RooflineResult& roofline, const std::filesystem::path& counters_reply);

nlohmann::json to_json(const TreeOutcome& outcome);

}  // namespace kp::autoprofiler
