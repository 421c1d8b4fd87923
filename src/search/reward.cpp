#include "search/reward.h"

#include <algorithm>
#include <cmath>

namespace kp::search {

double speedup_over_baseline(const EvaluationOutcome& outcome, std::optional<double> baseline_median_seconds) {
    if (!outcome.correct()) return 0.0;
    if (baseline_median_seconds && *baseline_median_seconds > 0 && outcome.median_seconds &&
        *outcome.median_seconds > 0)
        return *baseline_median_seconds / *outcome.median_seconds;
    return outcome.speedup.value_or(0.0);
}

double calibrated_reward(const RewardCalibration& calibration, bool correct, double speedup) {
    if (!correct) return 0.0;
    if (!(speedup > 0)) return calibration.correct_floor;
    const double low = std::log(calibration.min_speedup);
    const double high = std::log(calibration.max_speedup);
    const double scaled = std::clamp((std::log(speedup) - low) / (high - low), 0.0, 1.0);
    return std::max(scaled, calibration.correct_floor);
}

}  // namespace kp::search
