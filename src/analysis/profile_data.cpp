#include "analysis/profile_data.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kp::analysis {

std::optional<gpu::Occupancy> occupancy_from_metrics(const profile::KernelMetrics& m, const gpu::DeviceCeilings& ceilings) {
    auto block = m.number("launch__block_size");
    if (!block || *block <= 0) return std::nullopt;
    gpu::Occupancy o;
    o.source = "";
    o.threads_per_block = static_cast<int>(*block);
    o.registers_per_thread = static_cast<int>(m.number("launch__registers_per_thread").value_or(0));
    o.shared_memory_per_block = static_cast<long>(m.number("launch__shared_mem_per_block").value_or(0));
    o.warps_per_block = static_cast<int>(std::ceil(o.threads_per_block / 32.0));
    o.max_warps_per_sm = ceilings.device.max_warps_per_sm;
    const std::pair<int*, const char*> limits[] = {{&o.blocks_limit_registers, "launch__occupancy_limit_registers"},
                                                   {&o.blocks_limit_shared_memory, "launch__occupancy_limit_shared_mem"},
                                                   {&o.blocks_limit_warps, "launch__occupancy_limit_warps"},
                                                   {&o.blocks_limit_blocks, "launch__occupancy_limit_blocks"}};
    double blocks = std::numeric_limits<double>::infinity();
    for (const auto& [field, metric] : limits)
        if (auto v = m.number(metric)) {
            *field = static_cast<int>(std::lround(*v));
            blocks = std::min(blocks, *v);
            o.source = "driver";
        }
    if (o.source == "driver") {
        o.active_blocks_per_sm = static_cast<int>(blocks);
        o.active_warps_per_sm = std::min(blocks * o.warps_per_block, static_cast<double>(o.max_warps_per_sm));
        for (auto resource : gpu::kOccupancyLimiters)
            if (auto limit = o.blocks_limit(resource); limit && *limit == o.active_blocks_per_sm) o.limiters.push_back(resource);
    } else if (auto pct = m.number("sm__maximum_warps_per_active_cycle_pct")) {
        o.active_warps_per_sm = *pct / 100.0 * o.max_warps_per_sm;
    }
    o.occupancy_percent = 100.0 * o.theoretical_fraction();
    if (auto achieved = m.number("sm__warps_active.avg.pct_of_peak_sustained_active"))
        o.achieved_warps_per_sm = *achieved / 100.0 * o.max_warps_per_sm;
    return o;
}

}  // namespace kp::analysis
