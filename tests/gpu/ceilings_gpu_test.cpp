// gpu-labelled: runs kernelpro-ceilings on the GPU and checks that every number is in a sane range
// (and, on an H200, near the figures in docs/device.md). Skipped without a GPU.
#include <gtest/gtest.h>

#include "common/process.h"
#include "common/resource_locator.h"
#include "gpu/ceilings.h"
#include "gpu/cuda_driver.h"

using namespace kp::gpu;

TEST(CeilingsOnGpu, MeasuresSaneRanges) {
    auto driver = CudaDriver::load();
    if (!driver) GTEST_SKIP() << driver.error().message;
    kp::ProcessOptions options;
    options.timeout = std::chrono::minutes(10);
    auto ceilings = kp::locate_helper("kernelpro-ceilings");
    ASSERT_TRUE(ceilings.ok()) << ceilings.error().message;
    auto run = kp::run_process({ceilings->string()}, options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_TRUE(run->succeeded()) << run->describe_failure() << "\n" << run->stderr_text;
    std::cout << run->stderr_text;
    auto parsed = parse_ceilings_json(run->stdout_text);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const DeviceCeilings& c = *parsed;
    EXPECT_EQ(c.source, "measured");
    EXPECT_GT(c.device.sm_count, 0);

    struct Range {
        const char* name;
        double low, high;
    };
    // Wide bounds for any data-centre GPU of the last generations.
    const Range any_gpu[] = {{"dram_copy", 0.3e12, 12e12}, {"l2_read", 1e12, 60e12}, {"fp32_fma", 5e12, 250e12},
                             {"fp64_fma", 0.05e12, 120e12}, {"tensor_bf16", 50e12, 5000e12}, {"tensor_fp16", 50e12, 5000e12}};
    for (const auto& range : any_gpu) {
        const Ceiling* ceiling = c.find(range.name);
        ASSERT_NE(ceiling, nullptr) << range.name;
        if (!ceiling->skipped.empty() && std::string(range.name).rfind("tensor", 0) == 0 &&
            ceiling->skipped.find("cuBLAS not available") != std::string::npos) {
            std::cout << range.name << " skipped: " << ceiling->skipped << "\n";
            continue;
        }
        ASSERT_TRUE(ceiling->skipped.empty()) << range.name << ": " << ceiling->skipped;
        EXPECT_GE(ceiling->value, range.low) << range.name;
        EXPECT_LE(ceiling->value, range.high) << range.name;
        EXPECT_GE(ceiling->repetitions, 10) << range.name;
        EXPECT_LE(ceiling->min_seconds, ceiling->median_seconds) << range.name;
    }
    // Physical consistency: a copy cannot beat the DRAM peak; L2 is faster than DRAM.
    EXPECT_LE(*c.value("dram_copy"), 1.02 * c.device.theoretical_dram_bytes_per_second());
    EXPECT_GT(*c.value("l2_read"), *c.value("dram_copy"));
    EXPECT_GT(*c.value("fp32_fma"), *c.value("fp64_fma"));

    if (c.device.name.find("H200") != std::string::npos) {
        // docs/device.md: copy about 4.3 TB/s, FP32 66.9 and FP64 33.5 TFLOP/s at 1.98 GHz,
        // cuBLAS bf16 8192^3 770-800 TFLOP/s.
        EXPECT_GT(*c.value("dram_copy"), 3.5e12);
        EXPECT_GT(*c.value("fp32_fma"), 45e12);
        EXPECT_LT(*c.value("fp32_fma"), 70e12);
        EXPECT_GT(*c.value("fp64_fma"), 22e12);
        EXPECT_LT(*c.value("fp64_fma"), 36e12);
        if (auto bf16 = c.value("tensor_bf16")) {
            EXPECT_GT(*bf16, 550e12);
            EXPECT_LT(*bf16, 1000e12);
        }
    }
}
