// wall_time_budget: stop once the search's wall time, summed over its sessions, reaches the limit.
#include "search/stop_rule.h"

namespace kp::search {

KP_REGISTER_STOP_RULE(StopRule{
    "wall_time_budget", "--budget-seconds", "Wall-time budget in seconds, summed over sessions", std::nullopt, false,
    [](const SearchSpend& spend, const SearchTree&) -> std::optional<double> { return spend.elapsed_seconds; }})

}  // namespace kp::search
