// energy: joules per call at matched speed. The gain is baseline J / J, scaled down by the speedup
// when the kernel is more than max_slowdown slower than the baseline (energy bought with time does
// not count); the winner is the lowest joules per call among correct kernels at most max_slowdown
// slower than the fastest one found.
#include "search/objective.h"

namespace kp::search {

namespace {

double energy_gain(const ObjectiveRule& rule, const EvaluationOutcome& outcome, const EvaluationOutcome& baseline,
                   double speedup) {
    const double energy_ratio = *baseline.joules_per_call / *outcome.joules_per_call;
    const double matched = 1.0 / (1.0 + rule.max_slowdown);
    return speedup >= matched ? energy_ratio : energy_ratio * speedup / matched;
}

}  // namespace

KP_REGISTER_OBJECTIVE(Objective{"energy", "lowest joules per call at matched speed", true, true, false, energy_gain})

}  // namespace kp::search
