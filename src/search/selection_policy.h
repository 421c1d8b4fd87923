// Selection policies, registered by name: how the search picks the node to grow next once no
// fresh failure waits for its repair. `SearchConfig::strategy` names one (`--strategy NAME`).
// Built in: mcts (UCT with progressive widening, the default) and greedy (the ablation), one file
// each in policies/. A new policy is one file there ending in KP_REGISTER_SELECTION_POLICY(...)
// and one kp_add_plugin line in src/search/CMakeLists.txt.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/plugin_registry.h"
#include "search/selection.h"

namespace kp::search {

struct SelectionPolicy {
    std::string name;
    std::string summary;  // one line, for --help and errors
    // The node to expand; closes (close_spent) nodes it finds unable to grow. nullopt: nothing in
    // the tree can grow any more, and the search ends. Must be a pure function of the tree and
    // the config (ties broken by config.seed), so a resumed run makes the same choices.
    std::function<std::optional<ExpansionChoice>(SearchTree&, const SearchConfig&)> select;
};

PluginRegistry<SelectionPolicy>& selection_policies();

}  // namespace kp::search

#define KP_REGISTER_SELECTION_POLICY(...) \
    KP_REGISTER_PLUGINS(::kp::search::SelectionPolicy, ::kp::search::selection_policies(), __VA_ARGS__)
