// Where the timed interval starts (protocol.h TimingConfig::queued_start): queued behind a held
// stream the interval is the GPU's time alone; a kp_forward that waits on the GPU makes the hold
// run out, and the evaluation falls back to idle starts for every side instead of timing garbage.
#include <gtest/gtest.h>

#include "../source_tree.h"
#include "eval_fixture.h"
#include "task/task_spec.h"

namespace {

using namespace kp;

struct Timed {
    std::string status, start, fallback;
    double median = 0;
};

Timed evaluate(const char* file, bool queued) {
    auto task = load_task(kp::testing::source_path("tests/adversarial/task"));
    EXPECT_TRUE(task.ok()) << task.error().message;
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    Evaluator evaluator(builder, kp::testing::test_worker_options());
    auto options = kp::testing::quick_evaluation_options();
    options.timing.queued_start = queued;
    auto report = evaluator.evaluate(*task, kp::testing::source_path("tests/adversarial") / file, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    if (!report.ok()) return {};
    EXPECT_EQ(report->status, FailureClass::Ok) << report->message;
    return {failure_class_name(report->status), report->timing.value("start", std::string()),
            report->timing.value("start_fallback", std::string()), report->candidate_median_seconds().value_or(0)};
}

TEST(TimingStart, QueuedStartTimesTheGpuAloneAndIdleIncludesTheLaunch) {
    KP_SKIP_WITHOUT_GPU();
    auto queued = evaluate("ok_warp_per_row.cu", true);
    auto idle = evaluate("ok_warp_per_row.cu", false);
    EXPECT_EQ(queued.start, "queued");
    EXPECT_TRUE(queued.fallback.empty()) << queued.fallback;
    EXPECT_EQ(idle.start, "idle");
    // The same kernel either way: the two medians differ by the launch latency at most, far under
    // the kernel's ~130 us (a queued interval that lost the kernel would be near zero).
    EXPECT_GT(queued.median, 0.5 * idle.median);
    EXPECT_LT(queued.median, 1.2 * idle.median);
}

TEST(TimingStart, AForwardThatWaitsOnTheGpuFallsBackToIdleStarts) {
    KP_SKIP_WITHOUT_GPU();
    auto synced = evaluate("ok_sync_in_forward.cu", true);
    EXPECT_EQ(synced.start, "idle");
    EXPECT_NE(synced.fallback.find("candidate"), std::string::npos) << synced.fallback;
    auto plain = evaluate("ok_warp_per_row.cu", true);
    // Same kernel: the fallback timed it, not the 50 ms hold.
    EXPECT_LT(synced.median, 2.0 * plain.median);
}

}  // namespace
