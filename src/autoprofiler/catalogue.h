// The signals a tree may test and the actions a leaf may take, with each action's cost on one GPU.
// Actions: "counters:roofline" (the roofline's counter group, which also makes the roofline
// signals known), "lines:pc_sampling" (CUPTI PC sampling of one call in the counters run: the
// source lines findings quote) and "tool:<name>" for every registered micro-tool (its counters,
// SASS, ptxas or timeline). Signals: static facts known before any collection (from the build and the launch)
// and metrics measured by an action.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp::autoprofiler {

inline constexpr const char* kRooflineAction = "counters:roofline";
inline constexpr const char* kLinesAction = "lines:pc_sampling";

struct SignalInfo {
    std::string name;
    std::string needs;        // the action that measures it; empty: known before profiling
    std::string description;
    // The tools whose flaw this signal is evidence of (a spill size of register_spills): the
    // enumerative proposer tries these pairings first, so that of splits that fit the training
    // kernels equally well the learner keeps the one with a reason to hold on unseen kernels.
    std::vector<std::string> evidence_for = {};
};

const std::vector<SignalInfo>& signal_catalogue();
const SignalInfo* find_signal(const std::string& name);
// kRooflineAction, kLinesAction, then "tool:<name>" for each registered tool, in registry order.
std::vector<std::string> action_catalogue();
bool is_known_action(const std::string& action);
// "tool:narrow_global_access" -> "narrow_global_access"; "" for other actions.
std::string tool_of_action(const std::string& action);
// The tools among `actions`, in their order.
std::vector<std::string> tools_of_actions(const std::vector<std::string>& actions);

struct ActionCost {
    double seconds = 0;
    int passes = 0;
    bool operator==(const ActionCost&) const = default;
};

// Costs per action on one GPU (autoprofiler/costs/<gpu>.toml). `collection_seconds` is charged
// once when any action that runs in the counters worker is taken (one with replay passes, PC
// sampling, or a timeline tool's trace): the collection's fixed cost (the worker's start, CUDA
// context, module load, CUPTI's set-up, the inputs).
struct CostTable {
    std::string gpu;
    std::string source;                 // how it was measured
    double collection_seconds = 0;
    std::map<std::string, ActionCost> actions;
    // An action missing from the table is an error at load time, so lookups here always succeed.
    const ActionCost& of(const std::string& action) const;
};

Result<CostTable> load_cost_table(const std::filesystem::path& path);
// Whether taking the action starts the counters collection (and so pays its fixed cost).
bool runs_in_collection(const std::string& action, const ActionCost& cost);
std::string to_toml(const CostTable& table);

// Seeds a table from recorded CUPTI counter replies (<kernel>.counters.json: measured setup
// seconds, passes and seconds per pass): fixed cost = median of what a collection spends outside its
// passes, PC sampling and trace (the worker's start and context, its inputs, CUPTI's set-up and
// decoding); PC sampling = median of its seconds; a timeline tool = median trace seconds (the
// call traced in the counters run); seconds per pass = median of
// passes seconds / passes; each action's passes by the counter-pass model (estimate_ncu_replay_passes)
// for its own metrics beyond the roofline's, scaled so the full set matches the median measured
// passes; SASS/ptxas-only tools cost no passes and no collection time (the build already disassembles).
Result<CostTable> seed_cost_table(const std::vector<std::filesystem::path>& counters_replies, std::string gpu);

}  // namespace kp::autoprofiler
