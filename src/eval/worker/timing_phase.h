// Phase 4 of an evaluation: cold timing. Baseline and candidate interleaved (order alternating),
// inputs refilled from a fresh seed every other sample and sparsely perturbed in between, rotated
// among several buffers, every candidate output checked against the truth for the same inputs,
// until the stopping rule is satisfied for every side.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/worker/evaluation_context.h"

namespace kp::worker {

// Who is timed, where each writes, and where the truth for the candidate's outputs comes from.
struct TimedSides {
    const KernelLibrary& candidate;
    TensorGroup& candidate_out;
    unsigned char candidate_poison;
    const KernelLibrary* baseline;  // null: candidate only (stored data sets are the truth)
    TensorGroup& baseline_out;
    // The trusted reference, when the baseline is a different library: it computes the truth.
    const KernelLibrary* separate_reference;
    bool baseline_is_truth;  // the baseline is the reference: its outputs are the truth
    TensorGroup& expected_out;
    std::vector<std::pair<std::string, KernelLibrary>>& extras;  // trusted extra baselines, timed too
    TensorGroup& extra_out;                                      // written, never read
};

struct TimingOutcome {
    nlohmann::json timing;  // the result's "timing" section
    double candidate_median = 0, baseline_median = 0;
};

TimingOutcome run_timing_phase(EvaluationContext& c, const TimedSides& sides);

}  // namespace kp::worker
