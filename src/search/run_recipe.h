// Everything that defines a run besides its SearchConfig (budgets, seed, strategy, memory and
// feedback live there): the task as given and as found, the kernel it started from, its proposers
// and their LLM (settings as resolved, never a key), how candidates are evaluated and profiled,
// and where its outputs and its store are. Stored with the run (runs.recipe_json, written in the
// transaction that creates the run), so `runs resume` rebuilds the same loop.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace kp::search {

struct LlmChoice {
    std::string spec;         // --llm as given ("": the environment's or the config file's choice)
    std::string config_file;  // --llm-config, absolute ("": none)
    std::string record;       // --llm-record, absolute
    std::string replay;       // --llm-replay, absolute
    // Resolved when the run started (llm/recorded_settings.h); null until an LLM proposer did.
    nlohmann::json settings;
};

struct EvaluationSettings {
    int trials = 3;           // correctness trials per candidate
    double max_time = 1.0;    // timing cap per candidate, seconds
    double min_time = 0.05;   // measured time needed per candidate, seconds
    bool require_sandbox = false;  // --require-sandbox: refuse unless every sandbox layer is active
    bool compile_baseline = false; // PyTorch tasks: time torch.compile in every evaluation too (bench)
    // Joules per call of every candidate (objective.h's needs_energy, or --energy), over this many windows.
    bool energy = false;
    int energy_windows = 3;
};

struct ProfileSettings {
    bool enabled = false;        // --profile: every correct candidate is profiled
    double budget_seconds = 60;  // per candidate
    // --profile-tree: a profiling tree (file, or none | roofline | full) picks, per kernel, the
    // findings the proposers read, within its budget (<= 0: unbounded) at the costs of a GPU.
    std::string tree;
    std::string tree_costs = "h200";
    int tree_budget_passes = 0;
};

struct RunRecipe {
    std::string task_given;      // the task folder as typed
    std::string task_path;       // ... and as found (absolute): where resume looks
    std::string baseline_given;  // the kernel the run started from, as typed ("" : the task's default)
    std::string baseline_path;   // ... absolute (informational: node 0 holds its source)
    std::vector<std::string> proposers{"tuner"};  // registered names, asked in this order
    LlmChoice llm;
    EvaluationSettings evaluation;
    ProfileSettings profile;
    std::string out_dir;            // absolute
    std::string store;              // absolute
    std::string working_directory;  // where kernelpro was started
};

nlohmann::json recipe_to_json(const RunRecipe& recipe);
// Missing fields keep their defaults; errors name the field.
Result<RunRecipe> recipe_from_json(const nlohmann::json& object);

}  // namespace kp::search
