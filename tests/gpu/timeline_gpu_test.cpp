// gpu-labelled: injects libkp_timeline.so into timeline_probe (20 launches of kp_probe_scale, two
// copies, one memset) and checks the trace and its summary. Skipped without a GPU.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/files.h"
#include "common/process.h"
#include "common/resource_locator.h"
#include "gpu/cuda_driver.h"
#include "gpu/timeline.h"

using namespace kp::gpu;

TEST(TimelineOnGpu, InjectionRecordsTheProbeProgram) {
    auto driver = CudaDriver::load();
    if (!driver) GTEST_SKIP() << driver.error().message;
    auto dir = kp::make_temp_directory("kp-timeline-test");
    ASSERT_TRUE(dir.ok());
    auto trace = *dir / "trace.json";
    kp::ProcessOptions options;
    options.timeout = std::chrono::minutes(2);
    auto library = kp::locate_helper("libkp_timeline.so");
    ASSERT_TRUE(library.ok()) << library.error().message;
    // timeline_probe is built next to this test (and bundled next to it by make-gpu-bundle).
    auto self = kp::running_executable();
    ASSERT_TRUE(self.has_value());
    options.extra_environment = {{"CUDA_INJECTION64_PATH", library->string()}, {"KP_TIMELINE_OUT", trace.string()}};
    auto run = kp::run_process({(self->parent_path() / "timeline_probe").string()}, options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    ASSERT_TRUE(run->succeeded()) << run->describe_failure() << "\n" << run->stderr_text;

    auto text = kp::read_text_file(trace);
    ASSERT_TRUE(text.ok()) << "no trace written; stderr: " << run->stderr_text;
    auto timeline = parse_timeline_json(*text);
    ASSERT_TRUE(timeline.ok()) << timeline.error().message;
    std::size_t probe_kernels = 0;
    for (const auto& k : timeline->kernels) {
        if (k.name.find("kp_probe_scale") == std::string::npos) continue;
        ++probe_kernels;
        EXPECT_EQ(k.block[0], 256);
        EXPECT_EQ(k.grid[0], 4096);
        EXPECT_GT(k.registers_per_thread, 0);
        EXPECT_GT(k.end_ns, k.start_ns);
    }
    EXPECT_EQ(probe_kernels, 20u);
    TimelineSummary s = summarize_timeline(*timeline);
    EXPECT_EQ(s.memcpy_by_kind["HtoD"].bytes, 4u << 20);
    EXPECT_EQ(s.memcpy_by_kind["DtoH"].bytes, 4u << 20);
    EXPECT_GE(s.memset_total.count, 1u);
    EXPECT_EQ(s.launch_overhead.count, 20u);  // every launch joined to its cudaLaunchKernel
    EXPECT_EQ(s.launch_gaps.count, 19u);
    EXPECT_GE(s.host_synchronization_calls, 1u);
    EXPECT_EQ(s.dropped_records, 0u);
    std::filesystem::remove_all(*dir);
}
