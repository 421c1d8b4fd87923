// roofline_target: stop early once a correct kernel reaches this fraction of its roofline floor
// (floor time / measured time): there is little left to gain.
#include "search/stop_rule.h"

namespace kp::search {

KP_REGISTER_STOP_RULE(StopRule{
    "roofline_target", "--target-fraction", "Stop once a kernel reaches this fraction of its roofline floor", 0.9,
    false, [](const SearchSpend&, const SearchTree& tree) { return tree.best_roofline_fraction(); }})

}  // namespace kp::search
