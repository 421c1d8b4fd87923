// Stop rules, registered by name: each bounds one measure of the run (evaluations, wall time, LLM
// tokens, money, the best roofline fraction) and ends the search, checked before every
// iteration, once the measure reaches its limit. A rule is on when SearchConfig::stop_limits holds
// a limit under its name; its flag sets that limit on `kernelpro optimize` and `runs resume` with
// no parser edit. A new rule is one file in stop_rules/ ending in KP_REGISTER_STOP_RULE(...) and one
// kp_add_plugin line in src/search/CMakeLists.txt.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "common/plugin_registry.h"
#include "common/result.h"
#include "search/search_budget.h"
#include "search/search_tree.h"

namespace kp::search {

// Limits by rule name. A rule without a limit is off.
using StopLimits = std::map<std::string, double>;

struct StopRule {
    std::string name;  // the stop reason, and the key of the rule's limit
    std::string flag;  // e.g. "--budget-evals"
    std::string help;  // what the limit means, for --help
    std::optional<double> default_limit;  // in force unless the user changes it; nullopt: off by default
    bool whole_number = false;            // counts (evaluations, tokens) take whole-number limits
    // The run's current value of what the rule bounds; nullopt while it has none (no correct kernel yet).
    std::function<std::optional<double>(const SearchSpend&, const SearchTree&)> measure;
    bool time_target = false;  // a target on kernel time: only objectives with time_target (objective.h) stop on it
};

PluginRegistry<StopRule>& stop_rules();

// Every rule's default limit (the rules that are on unless turned off).
StopLimits default_stop_limits();

// Each name registered, each limit finite and positive, whole where the rule says so.
Status check_stop_limits(const StopLimits& limits);

// The first rule, in name order, whose measure has reached its limit; time targets only when
// `time_targets` (the run's objective is time).
std::optional<std::string> reached_stop_rule(const StopLimits& limits, const SearchSpend& spend, const SearchTree& tree,
                                             bool time_targets = true);

}  // namespace kp::search

#define KP_REGISTER_STOP_RULE(...) KP_REGISTER_PLUGINS(::kp::search::StopRule, ::kp::search::stop_rules(), __VA_ARGS__)
