// Every example task: the reference is consistent with itself and every honest candidate passes.
// Needs a GPU.
#include <gtest/gtest.h>

#include "eval_fixture.h"
#include "gpu/nvml_library.h"

using namespace kp;
namespace fs = std::filesystem;

TEST(ExampleTasks, EveryHonestCandidatePasses) {
    KP_SKIP_WITHOUT_GPU();
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    Evaluator evaluator(builder, kp::testing::test_worker_options());
    size_t evaluated = 0;
    std::vector<fs::directory_entry> folders;
    for (const char* root : {"tasks", "tests/tuning_corpus"})  // the example tasks and the autoprofiler's tuning corpus
        for (const auto& dir : fs::directory_iterator(kp::testing::source_path(root))) folders.push_back(dir);
    for (const auto& dir : folders) {
        if (!fs::exists(dir.path() / "task.toml")) continue;
        auto task = load_task(dir.path());
        ASSERT_TRUE(task.ok()) << task.error().message;
        for (const auto& c : fs::directory_iterator(dir.path() / "candidates")) {
            if (c.path().extension() != ".cu") continue;
            auto report = evaluator.evaluate(*task, c.path(), kp::testing::quick_evaluation_options());
            ASSERT_TRUE(report.ok()) << c.path() << ": " << report.error().message;
            std::printf("[tasks] %-18s %-12s %-14s median %9.1f us  speedup %6.2fx\n", task->name.c_str(),
                        c.path().filename().c_str(), failure_class_name(report->status),
                        report->candidate_median_seconds().value_or(0) * 1e6, report->speedup().value_or(0));
            EXPECT_EQ(report->status, FailureClass::Ok) << c.path() << ": " << report->message;
            // The worker reads the SM clock of its own GPU through NVML (found by PCI bus id), and
            // the roofline floor comes from this GPU's ceilings; a candidate that failed has no timing.
            if (report->status == FailureClass::Ok) {
                if (kp::gpu::Nvml::load()) {
                    EXPECT_TRUE(report->device.value("nvml", false)) << report->device.dump();
                    EXPECT_GT(report->timing["candidate"].value("sm_clock_mhz_median", 0u), 0u) << report->timing.dump();
                }
                EXPECT_TRUE(report->timing.contains("fraction_of_floor")) << report->timing.dump();
            }
            ++evaluated;
        }
    }
    EXPECT_GE(evaluated, 8u);
}
