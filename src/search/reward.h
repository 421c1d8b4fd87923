// Log-reward calibration with a hard correctness wall.
#pragma once

#include <optional>

#include "search/evaluation_outcome.h"
#include "search/search_config.h"

namespace kp::search {

// Speedup of `outcome` over the baseline: baseline median / candidate median when both were
// timed; the evaluator's own speedup when the baseline itself failed; 0 for a failed candidate.
double speedup_over_baseline(const EvaluationOutcome& outcome, std::optional<double> baseline_median_seconds);

// Maps a speedup over the baseline to [0, 1] on a log scale (equal ratios, equal steps: 2x from
// 1x is worth what 4x from 2x is). A candidate that is not correct earns exactly 0, and any correct
// one earns at least the floor, so no amount of speed makes a wrong kernel look good and a slow
// correct kernel still ranks above every wrong one.
double calibrated_reward(const RewardCalibration& calibration, bool correct, double speedup_over_baseline);

}  // namespace kp::search
