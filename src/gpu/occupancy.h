// Theoretical occupancy without a GPU: how many blocks of a kernel fit on one SM, given the SM's
// limits and the kernel's launch configuration. Follows the documented CUDA occupancy rules
// (registers allocated per warp in 256-register units inside 4 sub-partitions, shared memory in
// 128-byte units plus the driver's per-block reserve, warp and block slots).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"
#include "gpu/device_info.h"

namespace kp::gpu {

// The per-SM limits that decide occupancy. Defaults are sm_90 (H100/H200).
struct OccupancyLimits {
    int warp_size = 32;
    int max_threads_per_block = 1024;
    int max_warps_per_sm = 64;
    int max_blocks_per_sm = 32;
    int registers_per_sm = 65536;
    int registers_per_block = 65536;
    int max_registers_per_thread = 255;
    int register_allocation_unit = 256;  // registers, allocated per warp
    int register_sub_partitions = 4;     // the register file is split among the SM's 4 schedulers
    long shared_memory_per_sm = 233472;  // 228 KiB, the largest carveout
    long shared_memory_per_block_optin = 232448;  // 227 KiB
    long reserved_shared_memory_per_block = 1024;  // taken by the driver on sm_80 and later
    int shared_memory_allocation_unit = 128;

    static OccupancyLimits sm90();
    static OccupancyLimits from_device(const DeviceInfo& device);
};

struct LaunchConfiguration {
    int threads_per_block = 0;
    int registers_per_thread = 0;
    long static_shared_memory_bytes = 0;
    long dynamic_shared_memory_bytes = 0;
};

enum class OccupancyLimiter { warps, registers, shared_memory, blocks };
std::string to_string(OccupancyLimiter limiter);
inline constexpr OccupancyLimiter kOccupancyLimiters[] = {OccupancyLimiter::warps, OccupancyLimiter::registers,
                                                          OccupancyLimiter::shared_memory, OccupancyLimiter::blocks};

// The occupancy of one launch: the blocks each resource allows per SM, what that gives, where it
// comes from, and (from counters) what the kernel achieved. The one occupancy type: the calculator
// below produces it, the profile reads the driver's own calculation into it, the tools judge it.
struct Occupancy {
    // "calculator" (compute_occupancy) or "driver" (the CUDA occupancy calculation for the real
    // launch, as ncu reports it in launch__occupancy_limit_*).
    std::string source = "calculator";
    int threads_per_block = 0;
    int registers_per_thread = 0;
    long shared_memory_per_block = 0;  // as launched (the driver's report includes its reserve)
    int warps_per_block = 0;
    // Blocks per SM each resource alone would allow; -1: no limit (no registers or shared memory
    // used), 0: not known (a driver report may lack one).
    int blocks_limit_warps = 0;
    int blocks_limit_registers = 0;
    int blocks_limit_shared_memory = 0;
    int blocks_limit_blocks = 0;
    // Every resource whose limit equals the result (ties are common); the first is the main one,
    // in the order warps, registers, shared memory, blocks.
    std::vector<OccupancyLimiter> limiters;
    int active_blocks_per_sm = 0;
    double active_warps_per_sm = 0;    // theoretical; not whole when read from a percentage
    int max_warps_per_sm = 0;
    double occupancy_percent = 0.0;    // active warps / max warps per SM
    std::optional<double> achieved_warps_per_sm;  // from the counters, when they were collected
    // What each block actually takes, after rounding (the calculator's).
    int registers_per_warp_allocated = 0;
    long shared_memory_per_block_allocated = 0;

    // The block limit of one resource; nullopt when it is not known or not limiting (-1, 0).
    std::optional<int> blocks_limit(OccupancyLimiter resource) const;
    double theoretical_fraction() const;  // active warps / max warps, 0..1
};

void to_json(nlohmann::json& j, const Occupancy& occupancy);

// Fails when the configuration cannot launch at all (too many threads, registers or shared memory
// for one block); the message names the limit.
Result<Occupancy> compute_occupancy(const OccupancyLimits& limits, const LaunchConfiguration& launch);

}  // namespace kp::gpu
