// What a run has spent, why it stopped, and the budget check done before every iteration.
#pragma once

#include <cstdint>
#include <optional>

#include "search/search_config.h"

namespace kp::search {

struct SearchSpend {
    std::int64_t evaluations = 0;  // committed evaluations, the baseline included
    double elapsed_seconds = 0.0;  // search wall time, summed over sessions (resume continues it)
    std::int64_t llm_tokens = 0;   // input + output of every LLM exchange the proposers reported
    double cost_usd = 0.0;
};

enum class StopReason {
    evaluation_budget,
    wall_time_budget,
    token_budget,
    cost_budget,
    roofline_target,   // early stop: a correct kernel reached the target fraction of its floor
    search_exhausted,  // no node can grow any more
    stop_requested,    // request_stop() (Ctrl-C): the run is interrupted, resumable
    evaluator_error,   // the evaluator (not a candidate) failed: resumable once fixed
    proposer_error,
    store_error,
};

const char* stop_reason_name(StopReason reason);

// The first budget that `spend` has reached, if any.
std::optional<StopReason> exhausted_budget(const SearchBudgets& budgets, const SearchSpend& spend);

}  // namespace kp::search
