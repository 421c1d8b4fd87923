// time (the default): the gain is the speedup over the baseline; the fastest correct kernel wins.
#include "search/objective.h"

namespace kp::search {

KP_REGISTER_OBJECTIVE(Objective{"time", "lowest median time per call", false, false, true,
                                [](const ObjectiveRule&, const EvaluationOutcome&, const EvaluationOutcome&,
                                   double speedup) { return speedup; }})

}  // namespace kp::search
