// Hand-worked sm_90 occupancy cases. Each comment shows the arithmetic, so a failure says which rule
// moved: registers are allocated per warp in 256-register units, per sub-partition (4 x 16384);
// shared memory adds the driver's 1 KiB per block and rounds up to 128 bytes; 64 warps, 32 blocks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gpu/occupancy.h"

using namespace kp::gpu;

namespace {
Occupancy occupancy(int threads, int registers, long static_smem = 0, long dynamic_smem = 0) {
    auto r = compute_occupancy(OccupancyLimits::sm90(), {threads, registers, static_smem, dynamic_smem});
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : Occupancy{};
}
}  // namespace

TEST(Occupancy, FullOccupancyTiesWarpsAndRegisters) {
    // 8 warps/block; warps 64/8 = 8; registers 32*32 = 1024/warp, 16384/1024 = 16 * 4 = 64 warps -> 8.
    auto r = occupancy(256, 32);
    EXPECT_EQ(r.active_blocks_per_sm, 8);
    EXPECT_EQ(r.active_warps_per_sm, 64);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0);
    ASSERT_EQ(r.limiters.size(), 2u);
    EXPECT_EQ(r.limiters[0], OccupancyLimiter::warps);
    EXPECT_EQ(r.limiters[1], OccupancyLimiter::registers);
    EXPECT_EQ(r.blocks_limit_shared_memory, 228);  // 233472 / 1024 (the reserve alone)
}

TEST(Occupancy, SixtyFourRegistersHalveOccupancy) {
    // 64*32 = 2048/warp; 16384/2048 = 8 warps per sub-partition * 4 = 32 warps = 4 blocks of 8.
    auto r = occupancy(256, 64);
    EXPECT_EQ(r.active_blocks_per_sm, 4);
    EXPECT_EQ(r.active_warps_per_sm, 32);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 50.0);
    EXPECT_EQ(r.limiters.front(), OccupancyLimiter::registers);
    EXPECT_EQ(r.registers_per_warp_allocated, 2048);
}

TEST(Occupancy, MaximumRegistersRoundUpToTheAllocationUnit) {
    // 255*32 = 8160 -> 8192/warp; 16384/8192 = 2 * 4 = 8 warps = 2 blocks of 4 warps.
    auto r = occupancy(128, 255);
    EXPECT_EQ(r.registers_per_warp_allocated, 8192);
    EXPECT_EQ(r.active_blocks_per_sm, 2);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 12.5);
}

TEST(Occupancy, SubPartitionGranularityIsNotTheWholeRegisterFile) {
    // 80*32 = 2560/warp. Per sub-partition 16384/2560 = 6 -> 24 warps (the whole file would give 25).
    auto r = occupancy(32, 80);
    EXPECT_EQ(r.active_blocks_per_sm, 24);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 37.5);
    EXPECT_EQ(r.limiters.front(), OccupancyLimiter::registers);
}

TEST(Occupancy, OddWarpCountsPerBlock) {
    // 96 threads = 3 warps; 40*32 = 1280/warp; 16384/1280 = 12 * 4 = 48 warps / 3 = 16 blocks; warps 64/3 = 21.
    auto r = occupancy(96, 40);
    EXPECT_EQ(r.blocks_limit_warps, 21);
    EXPECT_EQ(r.blocks_limit_registers, 16);
    EXPECT_EQ(r.active_warps_per_sm, 48);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 75.0);
}

TEST(Occupancy, LargestBlockAtSixtyFourRegistersStillLaunches) {
    // 1024 threads * 64 registers = 65536 = the per-block limit: one block, 32 warps.
    auto r = occupancy(1024, 64);
    EXPECT_EQ(r.active_blocks_per_sm, 1);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 50.0);
}

TEST(Occupancy, TooManyRegistersForTheBlockCannotLaunch) {
    // 65*32 = 2080 -> 2304/warp * 32 warps = 73728 > 65536.
    auto r = compute_occupancy(OccupancyLimits::sm90(), {1024, 65, 0, 0});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("per-block limit"), std::string::npos);
}

TEST(Occupancy, SharedMemoryIncludesTheDriverReserve) {
    // 48 KiB + 1 KiB = 50176 B (already a multiple of 128); 233472/50176 = 4 blocks of 4 warps.
    auto r = occupancy(128, 16, 48 * 1024, 0);
    EXPECT_EQ(r.shared_memory_per_block_allocated, 50176);
    EXPECT_EQ(r.active_blocks_per_sm, 4);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 25.0);
    EXPECT_EQ(r.limiters.front(), OccupancyLimiter::shared_memory);
}

TEST(Occupancy, SharedMemoryRoundsUpTo128Bytes) {
    // 100 + 1024 = 1124 -> 1152; 233472/1152 = 202 blocks, but only 32 block slots.
    auto r = occupancy(32, 0, 0, 100);
    EXPECT_EQ(r.shared_memory_per_block_allocated, 1152);
    EXPECT_EQ(r.blocks_limit_shared_memory, 202);
    EXPECT_EQ(r.active_blocks_per_sm, 32);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 50.0);
    EXPECT_EQ(r.limiters.front(), OccupancyLimiter::blocks);
}

TEST(Occupancy, OptInMaximumFitsExactlyOneBlock) {
    // 227 KiB + 1 KiB reserve = 228 KiB = the whole SM.
    auto r = occupancy(256, 32, 0, 227 * 1024);
    EXPECT_EQ(r.active_blocks_per_sm, 1);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 12.5);
    auto over = compute_occupancy(OccupancyLimits::sm90(), {256, 32, 0, 227 * 1024 + 1});
    EXPECT_FALSE(over.ok());
}

TEST(Occupancy, RejectsImpossibleConfigurations) {
    EXPECT_FALSE(compute_occupancy(OccupancyLimits::sm90(), {0, 32, 0, 0}).ok());
    EXPECT_FALSE(compute_occupancy(OccupancyLimits::sm90(), {1025, 32, 0, 0}).ok());
    EXPECT_FALSE(compute_occupancy(OccupancyLimits::sm90(), {256, 256, 0, 0}).ok());
}

TEST(Occupancy, LimitsFromTheH200MatchTheSm90Defaults) {
    auto from_device = OccupancyLimits::from_device(h200_reference_device());
    auto a = compute_occupancy(from_device, {192, 72, 1000, 2000});
    auto b = compute_occupancy(OccupancyLimits::sm90(), {192, 72, 1000, 2000});
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->active_blocks_per_sm, b->active_blocks_per_sm);
    EXPECT_EQ(a->shared_memory_per_block_allocated, b->shared_memory_per_block_allocated);
}

TEST(Occupancy, JsonNamesTheLimiter) {
    nlohmann::json j = occupancy(256, 64);
    EXPECT_EQ(j["limiter"], "registers");
    EXPECT_EQ(j["active_warps_per_sm"], 32);
}
