// The evaluation's floors: the fraction of the roofline is measured against the GPU's measured
// ceilings when `kernelpro device` cached them, else its datasheet; the implausibly-fast check
// uses the datasheet's peaks; a GPU with neither has no floor and the report says so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "eval/roofline_floor.h"
#include "gpu/ceilings_cache.h"
#include "gpu/datasheets.h"

namespace {

kp::TaskSpec copy_task() {
    kp::TaskSpec task;
    task.cost.bytes = 4.8e9;   // 1 ms at the H200's 4.8 TB/s
    task.cost.flops = 66.9e6;  // negligible next to the bytes
    task.cost.precision = "f32";
    return task;
}

nlohmann::json hello(const std::string& name) { return {{"name", name}, {"driver_version", "580.159.04"}, {"cuda_driver_version", 13000}}; }

struct CacheRoot {
    std::filesystem::path path = *kp::make_temp_directory("kp-floor-cache-");
    ~CacheRoot() { std::filesystem::remove_all(path); }
};

void cache_measured_dram(const std::filesystem::path& root, const std::string& gpu, double bytes_per_second) {
    kp::gpu::DeviceCeilings measured;
    measured.source = "measured";
    measured.device.name = gpu;
    kp::gpu::Ceiling dram;
    dram.name = "dram_copy";
    dram.value = bytes_per_second;
    dram.unit = "byte/s";
    kp::gpu::Ceiling fp32 = dram;
    fp32.name = "fp32_fma";
    fp32.value = 60e12;
    fp32.unit = "flop/s";
    measured.ceilings = {dram, fp32};
    ASSERT_TRUE(kp::write_file_atomically(kp::gpu::ceilings_cache_path(root, gpu, "580.159.04"), nlohmann::json(measured).dump()));
}

}  // namespace

TEST(RooflineFloor, TakesTheLargerOfMemoryAndCompute) {
    kp::TaskSpec task;
    task.cost.bytes = 4.8e9;   // 1 ms at 4.8 TB/s
    task.cost.flops = 66.9e9;  // 1 ms at 66.9 TFLOP/s
    task.cost.precision = "f32";
    auto ceilings = kp::gpu::no_gpu_ceilings("test");
    auto floor = kp::roofline_floor(task, ceilings, "datasheet");
    ASSERT_TRUE(floor);
    EXPECT_NEAR(floor->memory_seconds, 1e-3, 1e-9);
    EXPECT_NEAR(floor->compute_seconds, 1e-3, 2e-6);
    task.cost.precision = "bf16";
    EXPECT_LT(kp::roofline_floor(task, ceilings, "datasheet")->compute_seconds, 1e-4);
    EXPECT_FALSE(kp::roofline_floor(task, kp::gpu::DeviceCeilings{}, "none")) << "no rates: no floor";
}

TEST(RooflineFloor, DatasheetOfTheRunningGpuWhenNothingIsMeasured) {
    CacheRoot root;
    auto floors = kp::task_floors(copy_task(), hello("NVIDIA H100 80GB HBM3"), root.path);
    ASSERT_TRUE(floors.target);
    EXPECT_NEAR(floors.target->memory_seconds, 4.8e9 / 3.35e12, 1e-9);  // the H100's bandwidth, not the H200's
    EXPECT_EQ(floors.target->ceilings.rfind("datasheet", 0), 0u) << floors.target->ceilings;
    ASSERT_TRUE(floors.plausibility);
    EXPECT_DOUBLE_EQ(floors.plausibility->seconds(), floors.target->seconds());
    EXPECT_TRUE(floors.notes.empty());
    EXPECT_EQ(floors.target->to_json()["bound"], "memory");
}

TEST(RooflineFloor, MeasuredCeilingsWhenCachedAndTheDatasheetForPlausibility) {
    CacheRoot root;
    cache_measured_dram(root.path, "NVIDIA H200", 4.0e12);
    auto floors = kp::task_floors(copy_task(), hello("NVIDIA H200"), root.path);
    ASSERT_TRUE(floors.target);
    EXPECT_NEAR(floors.target->memory_seconds, 4.8e9 / 4.0e12, 1e-9);
    EXPECT_EQ(floors.target->ceilings.rfind("measured (", 0), 0u) << floors.target->ceilings;
    ASSERT_TRUE(floors.plausibility);
    EXPECT_NEAR(floors.plausibility->memory_seconds, 1e-3, 1e-9);  // a kernel may beat the copy, never the peak
}

TEST(RooflineFloor, UnknownGpuSaysSoAndBorrowsNothing) {
    CacheRoot root;
    auto floors = kp::task_floors(copy_task(), hello("NVIDIA Future GPU"), root.path);
    EXPECT_FALSE(floors.target);
    EXPECT_FALSE(floors.plausibility);
    ASSERT_EQ(floors.notes.size(), 1u);
    EXPECT_NE(floors.notes[0].find("no datasheet for NVIDIA Future GPU"), std::string::npos) << floors.notes[0];

    // Measured there, with no datasheet to bound it: half the measured floor is the plausibility check.
    cache_measured_dram(root.path, "NVIDIA Future GPU", 2.0e12);
    auto measured = kp::task_floors(copy_task(), hello("NVIDIA Future GPU"), root.path);
    ASSERT_TRUE(measured.target);
    ASSERT_TRUE(measured.plausibility);
    EXPECT_NEAR(measured.plausibility->memory_seconds, measured.target->memory_seconds / 2, 1e-12);
    ASSERT_EQ(measured.notes.size(), 1u);
    EXPECT_NE(measured.notes[0].find("half the floor"), std::string::npos) << measured.notes[0];
}
