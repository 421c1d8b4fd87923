// The search's only view of how candidates are judged. The real implementation builds, checks,
// times and profiles on a GPU; tests use synthetic landscapes.
#pragma once

#include <cstdint>
#include <string>

#include "common/result.h"
#include "search/candidate.h"
#include "search/evaluation_outcome.h"

namespace kp::search {

struct EvaluationRequest {
    TaskIdentity task;
    std::int64_t run_id = 0;
    std::int64_t node_id = 0;
    std::string evaluation_key;
    Candidate candidate;
    std::string rationale;  // what its proposer said of it (an LLM's plan: checked against the SASS)
    bool is_baseline = false;
};

class Evaluator {
public:
    virtual ~Evaluator() = default;
    // Candidate failures (compile error, crash, wrong answer ...) are outcomes with a status
    // class. Return an error only when the evaluator itself is broken (GPU lost, disk full): the
    // run then stops, the node stays pending, and resume evaluates it again.
    virtual Result<EvaluationOutcome> evaluate(const EvaluationRequest& request) = 0;
};

}  // namespace kp::search
