// evaluation_budget: stop after this many committed evaluations, the baseline included.
#include "search/stop_rule.h"

namespace kp::search {

KP_REGISTER_STOP_RULE(StopRule{
    "evaluation_budget", "--budget-evals", "Evaluations, the baseline included", 64, true,
    [](const SearchSpend& spend, const SearchTree&) -> std::optional<double> { return spend.evaluations; }})

}  // namespace kp::search
