// Theoretical occupancy without a GPU: how many blocks of a kernel fit on one SM, given the SM's
// limits and the kernel's launch configuration. Follows the documented CUDA occupancy rules
// (registers allocated per warp in 256-register units inside 4 sub-partitions, shared memory in
// 128-byte units plus the driver's per-block reserve, warp and block slots).
#pragma once

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

struct OccupancyResult {
    int active_blocks_per_sm = 0;
    int active_warps_per_sm = 0;
    double occupancy_percent = 0.0;  // active warps / max warps per SM
    // Blocks per SM each resource alone would allow.
    int blocks_limit_warps = 0;
    int blocks_limit_registers = 0;
    int blocks_limit_shared_memory = 0;
    int blocks_limit_blocks = 0;
    // Every resource whose limit equals the result (ties are common); the first is the main one,
    // in the order warps, registers, shared memory, blocks.
    std::vector<OccupancyLimiter> limiters;
    // What each block actually takes, after rounding.
    int warps_per_block = 0;
    int registers_per_warp_allocated = 0;
    long shared_memory_per_block_allocated = 0;
};

void to_json(nlohmann::json& j, const OccupancyResult& result);

// Fails when the configuration cannot launch at all (too many threads, registers or shared memory
// for one block); the message names the limit.
Result<OccupancyResult> compute_occupancy(const OccupancyLimits& limits, const LaunchConfiguration& launch);

}  // namespace kp::gpu
