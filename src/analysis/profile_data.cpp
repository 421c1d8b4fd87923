#include "analysis/profile_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kp::analysis {

std::string OccupancyInfo::limiter() const {
    std::string best;
    double smallest = std::numeric_limits<double>::infinity();
    for (const auto& [resource, limit] : block_limits) {
        if (limit < smallest) {
            smallest = limit;
            best = resource;
        }
    }
    return best;
}

std::optional<OccupancyInfo> occupancy_from_metrics(const profile::KernelMetrics& m, const DeviceCeilings& ceilings) {
    auto block = m.number("launch__block_size");
    if (!block || *block <= 0) return std::nullopt;
    OccupancyInfo info;
    info.block_size = static_cast<int>(*block);
    info.registers_per_thread = static_cast<int>(m.number("launch__registers_per_thread").value_or(0));
    info.shared_bytes_per_block = m.number("launch__shared_mem_per_block").value_or(0);
    const std::pair<const char*, const char*> limits[] = {{"registers", "launch__occupancy_limit_registers"},
                                                          {"shared_memory", "launch__occupancy_limit_shared_mem"},
                                                          {"warps", "launch__occupancy_limit_warps"},
                                                          {"blocks", "launch__occupancy_limit_blocks"}};
    for (const auto& [resource, metric] : limits)
        if (auto v = m.number(metric)) info.block_limits[resource] = *v;
    if (!info.block_limits.empty()) info.source = "driver";
    info.max_warps_per_sm = ceilings.max_warps_per_sm;
    double warps_per_block = std::ceil(info.block_size / 32.0);
    if (!info.block_limits.empty()) {
        double blocks = std::numeric_limits<double>::infinity();
        for (const auto& [resource, limit] : info.block_limits) blocks = std::min(blocks, limit);
        info.theoretical_warps_per_sm = std::min(blocks * warps_per_block, info.max_warps_per_sm);
    } else if (auto pct = m.number("sm__maximum_warps_per_active_cycle_pct")) {
        info.theoretical_warps_per_sm = *pct / 100.0 * info.max_warps_per_sm;
    }
    if (auto achieved = m.number("sm__warps_active.avg.pct_of_peak_sustained_active"))
        info.achieved_warps_per_sm = *achieved / 100.0 * info.max_warps_per_sm;
    return info;
}

}  // namespace kp::analysis
