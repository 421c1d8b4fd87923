// math_pipe_saturation on constructed counters: a saturated FLOP pipe doing only the task's own
// arithmetic is a kernel at its compute roof (healthy, no finding); what it executes beyond the
// task's minimum is what can go; overhead pipes (ALU) keep the fixed one-fifth guess.
#include <gtest/gtest.h>

#include "analysis/tool_context.h"
#include "analysis/tool_registry.h"

using namespace kp::analysis;

namespace {

struct Case {
    ProfileData data;
    RooflineResult roofline;
};

Case saturated(const char* pipe, double pct, double executed_fp32, std::optional<double> task_flops) {
    Case c;
    c.data.kernel_name = "k";
    c.data.metrics = kp::profile::KernelMetrics{};
    c.data.metrics->metrics[ToolContext::pipe_metric(pipe)] = kp::profile::MetricValue{pct, "%"};
    c.data.task.min_flops = task_flops;
    c.roofline.kind = RooflineClass::compute_bound;
    c.roofline.flops.fp32 = executed_fp32;
    return c;
}

std::optional<Finding> diagnose(const Case& c) {
    const MicroTool* tool = default_tool_registry().find("math_pipe_saturation");
    EXPECT_NE(tool, nullptr);
    ToolContext ctx(c.data, c.roofline);
    return tool->diagnose(ctx);
}

}  // namespace

TEST(MathPipeSaturation, FmaDoingOnlyTheTasksFlopsIsHealthy) {
    EXPECT_FALSE(diagnose(saturated("fma", 92, 1e12, 1e12)));
}

TEST(MathPipeSaturation, FmaDoingTwiceTheTasksFlopsCanHalve) {
    auto f = diagnose(saturated("fma", 92, 2e12, 1e12));
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->estimated_gain, 0.5 * 0.92, 1e-9);
}

TEST(MathPipeSaturation, FmaWithUnknownTaskFlopsStaysUnderTheHealthyBar) {
    auto f = diagnose(saturated("fma", 92, 1e12, std::nullopt));
    ASSERT_TRUE(f);
    EXPECT_LT(f->estimated_gain, 0.15);
}

TEST(MathPipeSaturation, SaturatedAluIsOverheadWorthAFifth) {
    auto f = diagnose(saturated("alu", 90, 1e12, 1e12));
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->estimated_gain, 0.2 * 0.9, 1e-9);
}

// A FLOP pipe limits from 80%; below it the roofline already weighs its work.
TEST(MathPipeSaturation, FlopPipeBelowEightyPercentIsNotSaturated) {
    EXPECT_FALSE(diagnose(saturated("fma", 75, 2e12, 1e12)));
}

// An overhead pipe (no task FLOPs, invisible to the roofline) limits the kernel from the
// roofline's own bound, 60%: issue 12's index arithmetic kept the XU pipe at 77%.
TEST(MathPipeSaturation, OverheadPipeLimitsFromSixtyPercent) {
    EXPECT_FALSE(diagnose(saturated("alu", 55, 1e12, std::nullopt)));
    auto f = diagnose(saturated("alu", 75, 1e12, std::nullopt));
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->estimated_gain, 0.2 * 0.75, 1e-9);
    EXPECT_NE(f->summary.find("limits the kernel at 75%"), std::string::npos) << f->summary;
}
