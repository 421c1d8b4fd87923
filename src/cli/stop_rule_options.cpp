#include "cli/stop_rule_options.h"

#include "cli/common_options.h"

#include <fmt/format.h>

namespace kp::cli {

void add_stop_rule_options(CLI::App& command, GivenStopLimits& given, bool with_defaults) {
    for (const search::StopRule* rule : search::stop_rules().entries()) {
        std::string help = rule->help;
        if (!with_defaults) help += " (replaces the run's limit; 0: none)";
        else if (rule->default_limit) help += fmt::format(" (default {}; 0: none)", *rule->default_limit);
        else help += " (default: none)";
        auto* option = command.add_option(rule->flag, given[rule->name], help);
        option->check(finite_at_least(0));  // NaN, inf and negative limits are usage errors
        if (rule->whole_number) option->type_name("INT");
    }
}

Result<search::StopLimits> given_limit_changes(const GivenStopLimits& given) {
    search::StopLimits changes;
    for (const auto& [name, value] : given) {
        if (!value) continue;
        const search::StopRule* rule = search::stop_rules().find(name);
        if (*value < 0) return make_error(fmt::format("{} must not be negative", rule ? rule->flag : name));
        changes[name] = *value;
    }
    auto nonzero = changes;
    std::erase_if(nonzero, [](const auto& entry) { return entry.second == 0; });
    if (auto checked = search::check_stop_limits(nonzero); !checked) return checked.error();
    return changes;
}

Result<search::StopLimits> apply_given_limits(const GivenStopLimits& given, search::StopLimits base) {
    auto changes = given_limit_changes(given);
    if (!changes) return changes.error();
    for (const auto& [name, limit] : *changes) {
        if (limit == 0) base.erase(name);
        else base[name] = limit;
    }
    return base;
}

std::string describe_stop_limits(const search::StopLimits& limits) {
    std::string text;
    for (const auto& [name, limit] : limits) {
        const search::StopRule* rule = search::stop_rules().find(name);
        text += fmt::format("{}{} {}", text.empty() ? "stops at " : ", ", rule ? rule->flag : name, limit);
    }
    return text.empty() ? "no stop limits" : text;
}

}  // namespace kp::cli
