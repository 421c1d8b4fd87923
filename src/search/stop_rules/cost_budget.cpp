// cost_budget: stop once the LLM exchanges cost this much (USD, from the price table). Checked
// before each iteration, so one proposer call may overshoot it.
#include "search/stop_rule.h"

namespace kp::search {

KP_REGISTER_STOP_RULE(StopRule{
    "cost_budget", "--budget-cost", "LLM money budget in USD", std::nullopt, false,
    [](const SearchSpend& spend, const SearchTree&) -> std::optional<double> { return spend.cost_usd; }})

}  // namespace kp::search
