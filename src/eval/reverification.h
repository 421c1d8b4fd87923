// The last check of a run's best candidate: a fresh worker with a fresh seed, other poison patterns
// and another buffer layout than any evaluation of the search. A kernel that passed by fitting one
// of them (recognising the poison, keying a cache on buffer addresses, values of one seed) fails
// here, and a result forged inside one worker has to be forged again under the eyes of another.
#pragma once

#include <filesystem>
#include <string>

#include "eval/evaluator.h"

namespace kp {

struct Reverification {
    EvaluationReport report;
    uint64_t seed = 0;
    EvaluationVariant variant;

    bool passed() const { return report.status == FailureClass::Ok; }
    // "re-verified in a fresh worker (seed ..., poison 0xfe/0xa5, buffers shifted): ok, median 12.3 us"
    std::string summary() const;
};

// Evaluates `source` with `options`, except for the seed, the variant and at least 5 correctness
// trials.
Result<Reverification> reverify_candidate(Evaluator& evaluator, const TaskSpec& task, const std::filesystem::path& source,
                                          EvaluationOptions options);

}  // namespace kp
