// The collectors `--collectors` can name. ncu: hardware counters (counted in the worker through
// CUPTI's range profiler by default, by ncu with --counters ncu or when that fails); source: ncu's
// source page (per-SASS-instruction counters and warp-stall samples, for the tools that point at
// lines; about 12 more passes, so not collected unless asked for); sass, ptxas: from the build, no
// GPU; timeline: CUPTI activity trace; occupancy: the occupancy calculator with the real launch.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace kp::diagnose {

const std::set<std::string>& all_profile_collectors();
const std::set<std::string>& default_profile_collectors();  // all but source
std::string known_collector_list();                         // "ncu, source, sass, ..." for messages

// --collectors: a plain list replaces `base`; +NAME adds to it, -NAME removes. Returns the set and
// whether the timeline was named (then it runs whatever the number of kernels).
Result<std::pair<std::set<std::string>, bool>> apply_collector_list(const std::vector<std::string>& items,
                                                                    const std::set<std::string>& base);

}  // namespace kp::diagnose
