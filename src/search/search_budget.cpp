#include "search/search_budget.h"

namespace kp::search {

const char* stop_reason_name(StopReason reason) {
    switch (reason) {
        case StopReason::evaluation_budget: return "evaluation_budget";
        case StopReason::wall_time_budget: return "wall_time_budget";
        case StopReason::token_budget: return "token_budget";
        case StopReason::cost_budget: return "cost_budget";
        case StopReason::roofline_target: return "roofline_target";
        case StopReason::search_exhausted: return "search_exhausted";
        case StopReason::stop_requested: return "stop_requested";
        case StopReason::evaluator_error: return "evaluator_error";
        case StopReason::proposer_error: return "proposer_error";
        case StopReason::store_error: return "store_error";
    }
    return "unknown";
}

std::optional<StopReason> exhausted_budget(const SearchBudgets& budgets, const SearchSpend& spend) {
    if (budgets.max_evaluations && spend.evaluations >= *budgets.max_evaluations) return StopReason::evaluation_budget;
    if (budgets.max_wall_seconds && spend.elapsed_seconds >= *budgets.max_wall_seconds)
        return StopReason::wall_time_budget;
    if (budgets.max_llm_tokens && spend.llm_tokens >= *budgets.max_llm_tokens) return StopReason::token_budget;
    if (budgets.max_cost_usd && spend.cost_usd >= *budgets.max_cost_usd) return StopReason::cost_budget;
    return std::nullopt;
}

}  // namespace kp::search
