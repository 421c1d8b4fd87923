// edp: the energy-delay product. The gain is (baseline J x s) / (J x s): the energy ratio times the
// speedup, so time and energy trade one for one.
#include "search/objective.h"

namespace kp::search {

KP_REGISTER_OBJECTIVE(Objective{"edp", "lowest joules per call x seconds per call", true, false, false,
                                [](const ObjectiveRule&, const EvaluationOutcome& outcome, const EvaluationOutcome& baseline,
                                   double speedup) { return *baseline.joules_per_call / *outcome.joules_per_call * speedup; }})

}  // namespace kp::search
