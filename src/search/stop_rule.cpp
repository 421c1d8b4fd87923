#include "search/stop_rule.h"

#include <cmath>

#include <fmt/format.h>

namespace kp::search {

PluginRegistry<StopRule>& stop_rules() {
    static PluginRegistry<StopRule> registry("stop rule");
    return registry;
}

StopLimits default_stop_limits() {
    StopLimits limits;
    for (const StopRule* rule : stop_rules().entries())
        if (rule->default_limit) limits[rule->name] = *rule->default_limit;
    return limits;
}

Status check_stop_limits(const StopLimits& limits) {
    for (const auto& [name, limit] : limits) {
        auto rule = stop_rules().lookup(name);
        if (!rule) return rule.error();
        if (!std::isfinite(limit) || limit <= 0)
            return make_error(fmt::format("{} ({}): the limit must be a positive number, got {}", name, (*rule)->flag, limit));
        if ((*rule)->whole_number && limit != std::floor(limit))
            return make_error(fmt::format("{} ({}): the limit must be a whole number, got {}", name, (*rule)->flag, limit));
    }
    return {};
}

std::optional<std::string> reached_stop_rule(const StopLimits& limits, const SearchSpend& spend, const SearchTree& tree,
                                             bool time_targets) {
    for (const auto& [name, limit] : limits) {
        const StopRule* rule = stop_rules().find(name);
        if (!rule) continue;  // check_stop_limits refused it when the config was loaded
        if (rule->time_target && !time_targets) continue;
        auto value = rule->measure(spend, tree);
        if (value && *value >= limit) return name;
    }
    return std::nullopt;
}

}  // namespace kp::search
