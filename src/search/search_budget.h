// What a run has spent, and why it stopped.
#pragma once

#include <cstdint>
#include <string>

namespace kp::search {

struct SearchSpend {
    std::int64_t evaluations = 0;  // committed evaluations, the baseline included
    double elapsed_seconds = 0.0;  // search wall time, summed over sessions (resume continues it)
    std::int64_t llm_tokens = 0;   // input + output of every LLM exchange the proposers reported
    double cost_usd = 0.0;
};

enum class StopKind {
    stop_rule,         // a stop rule's limit was reached (budgets, the roofline target: stop_rule.h)
    search_exhausted,  // no node can grow any more
    stop_requested,    // request_stop() (Ctrl-C): the run is interrupted, resumable
    evaluator_error,   // the evaluator (not a candidate) failed: resumable once fixed
    proposer_error,
    store_error,
};

struct StopReason {
    StopReason(StopKind kind = StopKind::search_exhausted, std::string rule = {}) : kind(kind), rule(std::move(rule)) {}

    StopKind kind;
    std::string rule;  // for kind == stop_rule: the rule's registered name

    // The stored and printed reason: the rule's name ("evaluation_budget") or the kind's.
    std::string name() const;
    bool operator==(const StopReason&) const = default;
};

}  // namespace kp::search
