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

// What profiling costs on one GPU (autoprofiler/costs/<gpu>.toml), in the parts a live profile
// spends it in (profile_cost.h adds them up for the actions a walk takes): the counters worker's
// start (once), each counter collection's CUPTI set-up and decoding, replay passes (as CUPTI plans
// them for the union of a collection's counters on `chip`), the PC-sampled call, the traced call.
// `actions` gives each action alone: counters:roofline its own passes, a tool the passes of its
// counters beyond the roofline's, PC sampling and the timeline tools their seconds.
struct CostTable {
    std::string gpu;
    std::string source;                 // how it was measured
    std::string chip;                   // CUPTI's name for it ("GH100"); empty: passes add up per action
    double process_seconds = 0;         // the worker's start, CUDA context, module load, inputs, warm-up call
    double collection_seconds = 0;      // one counter collection's CUPTI set-up and decoding
    double seconds_per_pass = 0;
    std::map<std::string, ActionCost> actions;
    // An action missing from the table is an error at load time, so lookups here always succeed.
    const ActionCost& of(const std::string& action) const;
};

Result<CostTable> load_cost_table(const std::filesystem::path& path);
// Whether taking the action needs the counters worker (replay passes, PC sampling, the call's trace,
// or a tool's launch facts: reads_the_run).
bool runs_in_collection(const std::string& action, const ActionCost& cost);
// Whether the action is a tool that reads what only a run of the call records: counters, launch
// facts, occupancy or the trace (not a tool of the SASS and ptxas alone).
bool reads_the_run(const std::string& action);
// The counters an action counts (sorted, each once): the roofline's group, a tool's; none for the others.
const std::vector<std::string>& counters_of_action(const std::string& action);
// Whether the action is a tool that reads the call's timeline (the traced call).
bool reads_the_timeline(const std::string& action);
std::string to_toml(const CostTable& table);

// Seeds a table from recorded CUPTI counter replies (<kernel>.counters.json, first collections of
// the default profile): the worker's start = median of "process" (measured around the worker) plus
// "prepare"; a collection's fixed cost = median of CUPTI's set-up plus decoding; seconds per pass
// = median of passes seconds / passes; PC sampling = median of its seconds; a timeline tool =
// median trace seconds; each action's passes as CUPTI plans them for the replies' chip (alone, a
// tool's beyond the roofline's), or, without the counters library, by the counter-pass model
// scaled so that the full set matches the median measured passes. SASS/ptxas-only tools cost
// nothing (the build already disassembles).
Result<CostTable> seed_cost_table(const std::vector<std::filesystem::path>& counters_replies, std::string gpu);

}  // namespace kp::autoprofiler
