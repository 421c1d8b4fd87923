// Proposers, registered by name: where new kernel versions come from. `kernelpro optimize
// --proposer tuner,llm` picks one or more; several are asked in turn about the same node
// (CombinedProposer), and asymmetric branching decides how many of each kind the node takes.
// Built in: tuner (profile-guided parameter moves), random and exhaustive (parameter-space
// baselines), llm (LLM rewrites and repairs, src/agents/). A new proposer is one file ending in
// KP_REGISTER_PROPOSER(...) and one kp_add_plugin line in its library's CMakeLists.txt.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/plugin_registry.h"
#include "search/proposer.h"
#include "search/run_recipe.h"
#include "search/search_config.h"

namespace kp::search {

// What a proposer may be built from.
struct ProposerContext {
    TaskIdentity task;
    std::string task_description;  // what LLM agents are told: name, description, tensors, minimal cost
    LlmChoice llm;                 // the run's LLM; a proposer that resolves it fills llm.settings
    std::map<std::string, std::string> environment;  // the process environment, captured once (API keys)
    std::vector<std::string> served_llm_purposes;    // resume: purposes of the LLM exchanges the run kept
    std::vector<std::string> task_libraries;         // [build] libraries: "cutlass" picks the CuTe coder
    // The source tree the writer's code-search tools read (the CUTLASS/CuTe install); "" no tools.
    std::string code_search_tree;
};

struct ProposerPlugin {
    std::string name;
    std::string summary;  // one line, for --help and errors
    std::function<Result<std::unique_ptr<Proposer>>(ProposerContext&)> make;
    // What it needs from the machine (an API key ...), checked before anything is made: an error
    // here is the environment's (exit 3), one from `make` the user's choice (exit 2). May be empty.
    std::function<Status(const ProposerContext&)> check_environment;
    // Settings a new run that uses it starts with (the LLM's fixer makes every failure class
    // repairable). Applied once, at the start; the run stores its config. May be empty.
    std::function<void(SearchConfig&)> adjust_config;
};

PluginRegistry<ProposerPlugin>& proposers();

// Each name registered, none twice, at least one.
Status check_proposer_names(const std::vector<std::string>& names);

Status check_proposers_environment(const std::vector<std::string>& names, const ProposerContext& context);

// The proposers `names` lists (checked names), made with `context`; several are combined in the
// order given.
Result<std::unique_ptr<Proposer>> make_proposers(const std::vector<std::string>& names, ProposerContext& context);

void adjust_config_for(const std::vector<std::string>& names, SearchConfig& config);

}  // namespace kp::search

#define KP_REGISTER_PROPOSER(...) KP_REGISTER_PLUGINS(::kp::search::ProposerPlugin, ::kp::search::proposers(), __VA_ARGS__)
