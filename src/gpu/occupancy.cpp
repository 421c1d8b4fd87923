#include "gpu/occupancy.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace kp::gpu {

namespace {
long round_up(long value, long unit) { return unit <= 0 ? value : (value + unit - 1) / unit * unit; }
}  // namespace

OccupancyLimits OccupancyLimits::sm90() { return OccupancyLimits{}; }

OccupancyLimits OccupancyLimits::from_device(const DeviceInfo& d) {
    OccupancyLimits limits;  // sm_90 granularities; the device supplies the sizes
    auto take = [](auto& field, auto value) {
        if (value > 0) field = static_cast<std::remove_reference_t<decltype(field)>>(value);
    };
    take(limits.warp_size, d.warp_size);
    take(limits.max_threads_per_block, d.max_threads_per_block);
    take(limits.max_warps_per_sm, d.max_warps_per_sm);
    take(limits.max_blocks_per_sm, d.max_blocks_per_sm);
    take(limits.registers_per_sm, d.registers_per_sm);
    take(limits.registers_per_block, d.registers_per_block);
    take(limits.shared_memory_per_sm, d.shared_memory_per_sm_bytes);
    take(limits.shared_memory_per_block_optin, d.shared_memory_per_block_optin_bytes);
    // 0 is a real value here (before sm_80), so copy it whenever the device was queried at all.
    if (d.compute_capability_major > 0) limits.reserved_shared_memory_per_block = d.reserved_shared_memory_per_block_bytes;
    if (d.compute_capability_major > 0 && d.compute_capability_major < 8) limits.shared_memory_allocation_unit = 256;
    return limits;
}

std::string to_string(OccupancyLimiter limiter) {
    switch (limiter) {
        case OccupancyLimiter::warps: return "warps";
        case OccupancyLimiter::registers: return "registers";
        case OccupancyLimiter::shared_memory: return "shared_memory";
        case OccupancyLimiter::blocks: return "blocks";
    }
    return "unknown";
}

std::optional<int> Occupancy::blocks_limit(OccupancyLimiter resource) const {
    int limit = 0;
    switch (resource) {
        case OccupancyLimiter::warps: limit = blocks_limit_warps; break;
        case OccupancyLimiter::registers: limit = blocks_limit_registers; break;
        case OccupancyLimiter::shared_memory: limit = blocks_limit_shared_memory; break;
        case OccupancyLimiter::blocks: limit = blocks_limit_blocks; break;
    }
    return limit > 0 ? std::optional<int>(limit) : std::nullopt;
}

double Occupancy::theoretical_fraction() const { return max_warps_per_sm > 0 ? active_warps_per_sm / max_warps_per_sm : 0.0; }

void to_json(nlohmann::json& j, const Occupancy& r) {
    std::vector<std::string> limiters;
    for (auto l : r.limiters) limiters.push_back(to_string(l));
    j = {{"active_blocks_per_sm", r.active_blocks_per_sm},
         {"active_warps_per_sm", r.active_warps_per_sm},
         {"occupancy_percent", r.occupancy_percent},
         {"limiter", limiters.empty() ? std::string("none") : limiters.front()},
         {"limiters", limiters},
         {"blocks_limit", {{"warps", r.blocks_limit_warps},
                           {"registers", r.blocks_limit_registers},
                           {"shared_memory", r.blocks_limit_shared_memory},
                           {"blocks", r.blocks_limit_blocks}}},
         {"source", r.source},
         {"warps_per_block", r.warps_per_block},
         {"registers_per_warp_allocated", r.registers_per_warp_allocated},
         {"shared_memory_per_block_allocated", r.shared_memory_per_block_allocated}};
    if (r.achieved_warps_per_sm) j["achieved_warps_per_sm"] = *r.achieved_warps_per_sm;
}

Result<Occupancy> compute_occupancy(const OccupancyLimits& limits, const LaunchConfiguration& launch) {
    if (launch.threads_per_block <= 0) return make_error("threads per block must be positive");
    if (launch.threads_per_block > limits.max_threads_per_block)
        return make_error(std::to_string(launch.threads_per_block) + " threads per block exceeds the limit of " +
                          std::to_string(limits.max_threads_per_block));
    if (launch.registers_per_thread < 0 || launch.static_shared_memory_bytes < 0 || launch.dynamic_shared_memory_bytes < 0)
        return make_error("registers and shared memory must not be negative");
    if (launch.registers_per_thread > limits.max_registers_per_thread)
        return make_error(std::to_string(launch.registers_per_thread) + " registers per thread exceeds the limit of " +
                          std::to_string(limits.max_registers_per_thread));

    Occupancy r;
    r.threads_per_block = launch.threads_per_block;
    r.registers_per_thread = launch.registers_per_thread;
    r.shared_memory_per_block = launch.static_shared_memory_bytes + launch.dynamic_shared_memory_bytes;
    r.max_warps_per_sm = limits.max_warps_per_sm;
    r.warps_per_block = static_cast<int>((launch.threads_per_block + limits.warp_size - 1) / limits.warp_size);

    // Warp slots, and block slots.
    r.blocks_limit_warps = limits.max_warps_per_sm / r.warps_per_block;
    r.blocks_limit_blocks = limits.max_blocks_per_sm;

    // Registers: each warp gets a multiple of the allocation unit, and warps live in one of the
    // sub-partitions, so the count that fits is per sub-partition times the number of them.
    constexpr int kUnlimited = std::numeric_limits<int>::max();
    if (launch.registers_per_thread == 0) {
        r.blocks_limit_registers = kUnlimited;
    } else {
        r.registers_per_warp_allocated = static_cast<int>(
            round_up(static_cast<long>(launch.registers_per_thread) * limits.warp_size, limits.register_allocation_unit));
        // A block's warps are spread over all sub-partitions, so it is charged in whole rounds.
        long block_registers = static_cast<long>(r.registers_per_warp_allocated) *
                               round_up(r.warps_per_block, limits.register_sub_partitions);
        if (block_registers > limits.registers_per_block)
            return make_error("a block of " + std::to_string(launch.threads_per_block) + " threads at " +
                              std::to_string(launch.registers_per_thread) + " registers needs " +
                              std::to_string(block_registers) + " registers, over the per-block limit of " +
                              std::to_string(limits.registers_per_block));
        int warps_per_sub_partition =
            (limits.registers_per_sm / limits.register_sub_partitions) / r.registers_per_warp_allocated;
        r.blocks_limit_registers = warps_per_sub_partition * limits.register_sub_partitions / r.warps_per_block;
    }

    // Shared memory: the driver's reserve is added to every block, then rounded up to the unit.
    long requested = launch.static_shared_memory_bytes + launch.dynamic_shared_memory_bytes;
    if (requested > limits.shared_memory_per_block_optin)
        return make_error(std::to_string(requested) + " bytes of shared memory per block exceeds the opt-in limit of " +
                          std::to_string(limits.shared_memory_per_block_optin));
    r.shared_memory_per_block_allocated =
        round_up(requested + limits.reserved_shared_memory_per_block, limits.shared_memory_allocation_unit);
    r.blocks_limit_shared_memory = r.shared_memory_per_block_allocated > 0
                                       ? static_cast<int>(limits.shared_memory_per_sm / r.shared_memory_per_block_allocated)
                                       : kUnlimited;

    r.active_blocks_per_sm = std::min({r.blocks_limit_warps, r.blocks_limit_registers, r.blocks_limit_shared_memory,
                                       r.blocks_limit_blocks});
    r.active_warps_per_sm = r.active_blocks_per_sm * r.warps_per_block;
    r.occupancy_percent = 100.0 * r.active_warps_per_sm / limits.max_warps_per_sm;
    const std::pair<int, OccupancyLimiter> candidates[] = {
        {r.blocks_limit_warps, OccupancyLimiter::warps},
        {r.blocks_limit_registers, OccupancyLimiter::registers},
        {r.blocks_limit_shared_memory, OccupancyLimiter::shared_memory},
        {r.blocks_limit_blocks, OccupancyLimiter::blocks}};
    for (auto [limit, which] : candidates)
        if (limit == r.active_blocks_per_sm) r.limiters.push_back(which);
    if (r.blocks_limit_registers == kUnlimited) r.blocks_limit_registers = -1;  // JSON-friendly "no limit"
    if (r.blocks_limit_shared_memory == kUnlimited) r.blocks_limit_shared_memory = -1;
    return r;
}

}  // namespace kp::gpu
