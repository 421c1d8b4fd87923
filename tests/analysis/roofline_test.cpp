#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/roofline.h"
#include "fixture_profiles.h"
#include "profile/ncu_collector.h"

using namespace kp::analysis;
using kp::testing::fixture_profile;

namespace {

RooflineResult classify(const std::string& kernel) {
    auto result = classify_roofline(fixture_profile(kernel));
    EXPECT_TRUE(result) << kernel << ": " << (result ? "" : result.error().message);
    return result ? *result : RooflineResult{};
}

}  // namespace

TEST(Roofline, ClassifiesEveryFixtureKernel) {
    struct Expected {
        const char* kernel;
        RooflineClass kind;
        const char* unit;
    };
    const Expected expected[] = {
        {"copy_vec4", RooflineClass::memory_bound, "DRAM"},
        {"copy_strided", RooflineClass::memory_bound, "DRAM"},
        {"transpose_naive_smem", RooflineClass::memory_bound, "L1"},  // shared-memory wavefronts
        {"spill_heavy", RooflineClass::memory_bound, "L2"},
        {"sgemm_naive", RooflineClass::memory_bound, "L1"},
        {"wmma_bf16_gemm", RooflineClass::memory_bound, "L1"},
        {"small_grid_fma", RooflineClass::latency_bound, "latency"},
        {"histogram_atomic", RooflineClass::latency_bound, "latency"},
        {"fp64_in_fp32", RooflineClass::compute_bound, "FP64"},
    };
    for (const auto& e : expected) {
        RooflineResult r = classify(e.kernel);
        EXPECT_EQ(r.kind, e.kind) << e.kernel << ": " << r.reason;
        EXPECT_EQ(r.bound_unit, e.unit) << e.kernel << ": " << r.reason;
    }
}

TEST(Roofline, NumbersMatchTheKernelsArithmetic) {
    RooflineResult vec4 = classify("copy_vec4");
    EXPECT_NEAR(vec4.duration_seconds, 132.32e-6, 1e-9);
    EXPECT_NEAR(vec4.dram_sol, 0.81, 0.02);  // ncu reported 80.9% DRAM throughput
    EXPECT_NEAR(vec4.dram_bytes, 268442368.0 + 246738688.0, 1.0);
    ASSERT_TRUE(vec4.fraction_of_floor);
    EXPECT_NEAR(*vec4.fraction_of_floor, 0.84, 0.03);  // 537 MB at 4.81 TB/s vs 132 us

    // fp64_in_fp32: 2^24 threads x 64 DFMA x 2 FLOP.
    RooflineResult fp64 = classify("fp64_in_fp32");
    EXPECT_NEAR(fp64.flops.fp64, 16777216.0 * 64 * 2, 16777216.0 * 64 * 2 * 0.01);
    EXPECT_NEAR(fp64.fp64_sol, 0.80, 0.03);  // ncu: FP64 pipe 80.3%

    // wmma: 4096^3 x 2 tensor ops, counted exactly by the op-path counter.
    RooflineResult wmma = classify("wmma_bf16_gemm");
    EXPECT_DOUBLE_EQ(wmma.flops.tensor, 137438953472.0);
    EXPECT_GT(wmma.arithmetic_intensity, 100);

    // sgemm: 2 N^3 FP32 FLOP from the FFMA counter.
    RooflineResult sgemm = classify("sgemm_naive");
    EXPECT_NEAR(sgemm.flops.fp32, 2.0 * 2048 * 2048 * 2048, 2.0 * 2048 * 2048 * 2048 * 0.01);
    EXPECT_LT(sgemm.fp32_sol, 0.15);

    RooflineResult small = classify("small_grid_fma");
    ASSERT_TRUE(small.waves);
    EXPECT_LT(*small.waves, 1.0);
    EXPECT_NE(small.reason.find("less than one wave"), std::string::npos);
}

TEST(Roofline, WorksFromTheMinimalLiveMetricList) {
    // The live --metrics fixture has only duration, DRAM bytes and FFMA: enough to see a DRAM-bound copy.
    auto kernels = kp::profile::parse_ncu_csv(kp::testing::read_fixture("h200/ncu_metrics_long.csv"));
    ASSERT_TRUE(kernels);
    ProfileData data;
    data.kernel_name = "copy_vec4";
    data.ceilings = kp::testing::h200_ceilings();
    data.metrics = kernels->front();
    auto r = classify_roofline(data);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->kind, RooflineClass::memory_bound);
    EXPECT_EQ(r->bound_unit, "DRAM");
}

// A GPU without ceilings (no datasheet table, not measured) has no roofline: the classifier says
// so instead of comparing against another GPU's numbers.
TEST(Roofline, WithoutCeilingsTheClassIsUnknownAndSaysWhy) {
    auto kernels = kp::profile::parse_ncu_csv(kp::testing::read_fixture("h200/ncu_metrics_long.csv"));
    ASSERT_TRUE(kernels);
    ProfileData data;
    data.kernel_name = "copy_vec4";
    data.metrics = kernels->front();
    data.ceilings.device.name = "NVIDIA Future GPU";
    auto r = classify_roofline(data);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("no ceilings for NVIDIA Future GPU"), std::string::npos) << r.error().message;
}

// The FLOP ceilings are taken at one reference clock (the FP32 rate's, 1.98 GHz on the H200):
// the datasheet's 989 TFLOP/s dense BF16, stated at 1.83 GHz, counts as 1070 there; a kernel
// running at 1.83 GHz is then judged against 989 again.
TEST(Roofline, TensorCeilingHoldsAtTheClockItIsStatedAt) {
    auto c = kp::testing::h200_ceilings();
    EXPECT_DOUBLE_EQ(c.reference_clock_hz(), 1.98e9);
    EXPECT_NEAR(*c.value("tensor_bf16"), 989.4e12, 0.1e12);
    EXPECT_NEAR(c.at_reference_clock("tensor_bf16"), 1070.5e12, 0.1e12);
    EXPECT_NEAR(c.at_reference_clock("fp32_fma"), 66.9e12, 0.01e12);
    EXPECT_DOUBLE_EQ(c.at_reference_clock("dram_copy"), 4.8e12);  // not an SM-clock rate: as stated
}

TEST(Roofline, NeedsDuration) {
    ProfileData data;
    data.ceilings = kp::testing::h200_ceilings();
    EXPECT_FALSE(classify_roofline(data));
    data.metrics = kp::profile::KernelMetrics{};
    EXPECT_FALSE(classify_roofline(data));
}

TEST(Roofline, StageOneListIsRawCountersThatFitInAFewPasses) {
    const auto& names = roofline_metric_names();
    EXPECT_LE(names.size(), 24u);
    for (const auto& name : names) {
        EXPECT_EQ(name.find("throughput"), std::string::npos) << name;
        EXPECT_EQ(name.find("pct_of_peak"), std::string::npos) << name;
        EXPECT_NE(name.rfind("launch__", 0), 0u) << name;  // CUPTI rejects launch__ metrics
    }
    EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
    // Measured on the H200: 6 passes (the fp16 tensor op path alone takes 3).
    EXPECT_LE(kp::profile::estimate_ncu_replay_passes(names, {}, false), 6);
}
