// Energy per call on the GPU (NVML's counter): the counter's update period is measured and
// plausible, every window is long enough for it and records the clock state, joules per call are
// positive with a small spread, and the slower reference does not use less energy than fast.cu.
// Needs a GPU.
#include <gtest/gtest.h>

#include "eval_fixture.h"
#include "sandbox/sandbox_report.h"
#include "../source_tree.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {
EvaluationReport evaluate_with_energy(const fs::path& task_dir, const fs::path& candidate, const fs::path& baseline = {}) {
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    Evaluator evaluator(builder, kp::testing::test_worker_options());
    auto task = load_task(task_dir);
    EXPECT_TRUE(task.ok());
    auto options = kp::testing::quick_evaluation_options();
    options.energy.enabled = true;
    options.energy.windows = 3;
    if (!baseline.empty()) options.baseline_source = baseline;
    auto report = evaluator.evaluate(*task, candidate, options);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
    return report.ok() ? *report : EvaluationReport{};
}
}  // namespace

TEST(Energy, JoulesPerCallWithTheirSpreadAndTheCountersPeriod) {
    KP_SKIP_WITHOUT_GPU();
    const fs::path task = kp::testing::source_path("tasks/softmax_rows_f32");
    auto report = evaluate_with_energy(task, task / "candidates" / "fast.cu");
    // The worker measured energy with candidate code sandboxed: NVML's reads after the sandbox went
    // on were not refused (that would be rejected_by_sandbox, or energy unavailable).
    const std::string sandbox =
        report.sandbox.is_object() ? sandbox::SandboxReport::from_json(report.sandbox).summary() : "not reported";
    std::printf("[energy] sandbox: %s\n", sandbox.c_str());
    ASSERT_EQ(report.status, FailureClass::Ok) << report.message;
    const auto& e = report.energy;
    ASSERT_TRUE(e.is_object() && e.value("available", false)) << e.dump();
    double period = e["counter_update_period_s"].get<double>();
    std::printf("[energy] counter period %.1f ms, idle %.1f W, window %.2f s, reference %.4g mJ, fast %.4g mJ (sd %.2g), ratio %.3f\n",
                period * 1e3, e["idle_watts"].get<double>(), e["window_seconds"].get<double>(),
                1e3 * e["baseline"]["joules_per_call"].get<double>(), 1e3 * e["candidate"]["joules_per_call"].get<double>(),
                1e3 * e["candidate"]["joules_per_call_stddev"].get<double>(), e.value("energy_ratio", 0.0));
    EXPECT_GT(period, 1e-3);
    EXPECT_LT(period, 1.0);
    EXPECT_GE(e["window_seconds"].get<double>(), std::max(1.0, 10 * period) - 1e-9);
    EXPECT_GT(e["idle_watts"].get<double>(), 10.0);
    for (const char* side : {"baseline", "candidate"}) {
        const auto& s = e[side];
        EXPECT_GT(s["joules_per_call"].get<double>(), 0) << side;
        EXPECT_LT(s["relative_stddev"].get<double>(), 0.2) << side << ": windows disagree";
        ASSERT_EQ(s["windows"].size(), 3u);
        for (const auto& w : s["windows"]) {
            EXPECT_GE(w["seconds"].get<double>(), 0.9 * e["window_seconds"].get<double>()) << side;
            EXPECT_TRUE(w["state"].contains("sm_clock_mhz")) << "clock state recorded per window";
            EXPECT_GT(w["average_watts"].get<double>(), e["idle_watts"].get<double>() * 0.8) << side;
        }
    }
    // The reference is slower than fast.cu on this task: it should not use less energy per call.
    EXPECT_GT(e.value("energy_ratio", 0.0), 0.9);
}
