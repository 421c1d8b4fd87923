#include <gtest/gtest.h>

#include "eval/roofline_floor.h"

TEST(RooflineFloor, TakesTheLargerOfMemoryAndCompute) {
    kp::TaskSpec task;
    task.cost.bytes = 4.8e9;  // 1 ms at 4.8 TB/s
    task.cost.flops = 66.9e9; // 1 ms at 66.9 TFLOP/s
    task.cost.precision = "f32";
    auto floor = kp::roofline_floor(task, kp::h200_datasheet_peaks());
    EXPECT_NEAR(floor.memory_seconds, 1e-3, 1e-9);
    EXPECT_NEAR(floor.compute_seconds, 1e-3, 1e-9);
    task.cost.precision = "bf16";
    EXPECT_LT(kp::roofline_floor(task, kp::h200_datasheet_peaks()).compute_seconds, 1e-4);
}
