// The ceilings a profile compares against.
#include <gtest/gtest.h>

#include "diagnose/session_ceilings.h"

// Measured FLOP/s ceilings are put at one reference clock (the FP32 measurement's): cuBLAS bf16
// reached 807 TFLOP/s at ~1.6 GHz on the H200, which is ~999 at 1.98 GHz (the datasheet's 989
// dense), and the roofline scales that back to whatever clock a kernel ran at.
TEST(AnalysisCeilings, FlopCeilingsShareTheReferenceClock) {
    kp::gpu::DeviceCeilings measured;
    auto add = [&](const char* name, double value, std::optional<double> clock_mhz) {
        kp::gpu::Ceiling c;
        c.name = name;
        c.value = value;
        c.unit = "flop/s";
        c.sm_clock_mhz_mean = clock_mhz;
        measured.ceilings.push_back(c);
    };
    add("fp32_fma", 65.1e12, 1980.0);
    add("tensor_bf16", 807e12, 1600.0);
    add("fp64_fma", 33.3e12, std::nullopt);  // no clock reading: taken as is
    auto c = kp::diagnose::analysis_ceilings(measured);
    EXPECT_DOUBLE_EQ(c.sm_clock_hz, 1980e6);
    EXPECT_DOUBLE_EQ(c.fp32_flops, 65.1e12);
    EXPECT_NEAR(c.bf16_tensor_flops, 807e12 * 1980.0 / 1600.0, 1e6);
    EXPECT_DOUBLE_EQ(c.fp64_flops, 33.3e12);
}
