#include "search/widening.h"

#include <algorithm>
#include <cmath>

namespace kp::search {

int allowed_children(const WideningRule& rule, std::int64_t visits) {
    if (visits <= 0) return 0;
    // The small epsilon keeps exact powers (k * N^alpha == 3.0) from rounding up to 4.
    const double allowed = std::ceil(rule.k * std::pow(static_cast<double>(visits), rule.alpha) - 1e-9);
    return std::max(1, static_cast<int>(allowed));
}

const WideningRule& widening_rule_for(const SearchConfig& config, ProposalKind kind) {
    return kind == ProposalKind::rewrite ? config.rewrite_widening : config.parameter_widening;
}

}  // namespace kp::search
