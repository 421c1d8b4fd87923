// The stop rules' flags (--budget-evals, --target-fraction, ...), made from the registry, so a new
// rule reaches `optimize` and `runs resume` with no parser edit.
#pragma once

#include <map>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "common/result.h"
#include "search/stop_rule.h"

namespace kp::cli {

// What the user gave, by rule name (nullopt: the flag was not given).
using GivenStopLimits = std::map<std::string, std::optional<double>>;

// One flag per registered rule. `with_defaults`: the help names each rule's default (optimize);
// otherwise a flag replaces the run's stored limit (runs resume).
void add_stop_rule_options(CLI::App& command, GivenStopLimits& given, bool with_defaults);

// The given limits, checked (0 turns a rule off); `base` supplies the rest.
Result<search::StopLimits> apply_given_limits(const GivenStopLimits& given, search::StopLimits base);

// Only the given ones, for ResumeOptions (0 kept: it turns the rule off there).
Result<search::StopLimits> given_limit_changes(const GivenStopLimits& given);

// "stops at --budget-evals 8, --target-fraction 0.9" (or "no stop limits"), for the start line.
std::string describe_stop_limits(const search::StopLimits& limits);

}  // namespace kp::cli
