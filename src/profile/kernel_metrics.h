// What ncu reported for one profiled kernel launch: identity (id, name, block, grid) and a map
// metric name -> value, plus the guided-analysis rule results of `--page details`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/metric_value.h"

namespace kp::profile {

struct RuleResult {
    std::string section;
    std::string name;          // e.g. "UncoalescedGlobalAccess"
    std::string type;          // INF / OPT / WRN
    std::string description;
    std::string speedup_type;  // "global" / "local" / ""
    std::optional<double> estimated_speedup_pct;
};

struct KernelMetrics {
    int id = -1;
    std::string name;   // as ncu prints it: demangled, with the parameter list
    std::string block;  // "(256, 1, 1)"
    std::string grid;
    std::string device;
    std::string compute_capability;
    std::map<std::string, MetricValue> metrics;
    std::vector<RuleResult> rules;

    const MetricValue* find(const std::string& metric) const;
    // The metric as a number; nullopt when absent or not numeric.
    std::optional<double> number(const std::string& metric) const;
};

// ncu's own count of the replay passes it made for a launch (free: no counter); CUPTI's replies
// carry it too (passes per kernel), so both say how many replays a kernel took.
inline constexpr const char* kReplayPassesMetric = "profiler__replayer_passes";

// Replays per kernel (kReplayPassesMetric), summed over the kernels; 0 when none says.
int counted_replay_passes(const std::vector<KernelMetrics>& kernels);

}  // namespace kp::profile
