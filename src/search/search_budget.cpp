#include "search/search_budget.h"

namespace kp::search {

std::string StopReason::name() const {
    switch (kind) {
        case StopKind::stop_rule: return rule;
        case StopKind::search_exhausted: return "search_exhausted";
        case StopKind::stop_requested: return "stop_requested";
        case StopKind::evaluator_error: return "evaluator_error";
        case StopKind::proposer_error: return "proposer_error";
        case StopKind::store_error: return "store_error";
    }
    return "unknown";
}

}  // namespace kp::search
