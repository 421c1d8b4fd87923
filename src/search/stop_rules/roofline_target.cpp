// roofline_target: stop early once a correct kernel reaches this fraction of its roofline floor
// (floor time / measured time): there is little left to gain in time. A time target: energy and
// EDP runs go on (a kernel at the time floor may still waste energy).
#include "search/stop_rule.h"

namespace kp::search {

KP_REGISTER_STOP_RULE(StopRule{
    "roofline_target", "--target-fraction", "Stop once a kernel reaches this fraction of its roofline floor", 0.9,
    false, [](const SearchSpend&, const SearchTree& tree) { return tree.best_roofline_fraction(); },
    /*time_target=*/true})

}  // namespace kp::search
