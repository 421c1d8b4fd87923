// What the driver reports after every committed evaluation (for the CLI's progress line and logs).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "search/evaluation_outcome.h"
#include "search/search_budget.h"

namespace kp::search {

struct SearchProgress {
    std::int64_t run_id = 0;
    std::int64_t iteration = 0;  // expansions so far (nodes beyond the baseline)
    std::int64_t node_id = 0;    // the node just evaluated
    std::optional<std::int64_t> parent_id;
    StatusClass status = StatusClass::ok;
    double node_speedup_over_baseline = 0.0;
    double best_speedup_over_baseline = 0.0;
    std::optional<double> best_speedup;            // the best node's speedup over the task reference
    std::optional<double> best_roofline_fraction;  // "% of roofline floor" = 100 * this
    SearchSpend spend;
};

using ProgressCallback = std::function<void(const SearchProgress&)>;

}  // namespace kp::search
