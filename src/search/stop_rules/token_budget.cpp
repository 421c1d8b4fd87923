// token_budget: stop once the LLM exchanges the proposers reported used this many tokens (input +
// output). Checked before each iteration, so one proposer call may overshoot it.
#include "search/stop_rule.h"

namespace kp::search {

KP_REGISTER_STOP_RULE(StopRule{
    "token_budget", "--budget-tokens", "LLM token budget, input + output", std::nullopt, true,
    [](const SearchSpend& spend, const SearchTree&) -> std::optional<double> { return spend.llm_tokens; }})

}  // namespace kp::search
