// The profile on a GPU (scripts/gpu-check profile runs these; skipped here with the reason): the
// timeline for calls of two kernels, the worker's CUPTI counters against ncu's, and the fallback to
// ncu. CuptiCounterPlan needs only the counters library, no GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "analysis/tool_list.h"
#include "analysis/tool_registry.h"
#include "gpu/helper_paths.h"
#include "profile/cupti_counter_collector.h"
#include "profile_fixture.h"

using namespace kp::testing;

namespace {

kp::diagnose::ProfileOptions fresh(kp::diagnose::CounterSource counters = kp::diagnose::CounterSource::automatic) {
    kp::diagnose::ProfileOptions options;
    options.use_cache = false;
    options.counters = counters;
    return options;
}

}  // namespace

// sum_reduce_f32's reference launches two kernels per call, so the default profile also traces the
// call with CUPTI, and the launch-overhead tool gets its data. The trace used to be lost: the worker
// leaves with _exit, which skips the tracer's atexit.
TEST(ProfileOnGpu, TwoKernelCallGetsATimeline) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_gpu()) GTEST_SKIP() << "no GPU: the timeline needs one (scripts/gpu-check profile runs this)";
    const std::string task = kSource + "/tasks/sum_reduce_f32";
    auto run = profile_kernel(task, task + "/reference.cu", fresh());
    ASSERT_TRUE(run.ok) << run.error;
    const auto& report = run.report;
    EXPECT_EQ(report["environment_error"], "") << report.dump();
    EXPECT_GE(report["kernels"].size(), 2u);
    for (const auto& note : report["notes"]) EXPECT_EQ(note.get<std::string>().rfind("timeline", 0), std::string::npos) << note;
    EXPECT_TRUE(report["cost"]["collector_seconds"].contains("timeline")) << report["cost"].dump();
    // Traced in the counters run itself: no worker run of its own.
    EXPECT_EQ(report["cost"]["timeline_source"], "counters run") << report["notes"].dump();
    // The counters came from the worker itself (CUPTI): no ncu run.
    EXPECT_EQ(report["cost"]["cupti_runs"], 1) << report["notes"].dump();
    EXPECT_EQ(report["cost"]["ncu_runs"], 0);
    bool ran = false;
    for (const auto& tool : report["kernels"][0]["tools_run"]) ran = ran || tool == "launch_overhead";
    EXPECT_TRUE(ran) << report["kernels"][0].dump();

    // Profiled again: everything from the cache (nothing is collected twice), the same diagnosis.
    auto again = profile_kernel(task, task + "/reference.cu");
    ASSERT_TRUE(again.ok) << again.error;
    const auto& cached = again.report;
    EXPECT_EQ(cached["cost"]["cupti_runs"], 0);
    EXPECT_EQ(cached["cost"]["ncu_runs"], 0);
    const std::string hits = cached["cost"]["cached"].dump();
    EXPECT_NE(hits.find("counters"), std::string::npos) << hits;
    EXPECT_EQ(cached["cost"]["timeline_source"], "counters run") << hits;  // the trace is cached with the counters
    EXPECT_EQ(cached["kernels"][0]["findings"], report["kernels"][0]["findings"]);
}

// The counters the worker collects through CUPTI and ncu's give the same diagnosis: the same class
// and top finding on a flawed corpus kernel, with fewer passes and no ncu run.
TEST(ProfileOnGpu, CountersInTheWorkerDiagnoseLikeNcu) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_gpu()) GTEST_SKIP() << "no GPU: counters need one (scripts/gpu-check profile runs this)";
    if (!kp::profile::locate_nvidia_tool("ncu")) GTEST_SKIP() << "no ncu to compare with";
    const std::string task = kCorpus + "/task";
    const std::string kernel = kCorpus + "/bank_conflict_transpose.cu";
    auto cupti = profile_kernel(task, kernel, fresh(kp::diagnose::CounterSource::cupti));
    auto ncu = profile_kernel(task, kernel, fresh(kp::diagnose::CounterSource::ncu));
    ASSERT_TRUE(cupti.ok) << cupti.error;
    ASSERT_TRUE(ncu.ok) << ncu.error;
    const auto &a = cupti.report, &b = ncu.report;
    EXPECT_EQ(a["cost"]["cupti_runs"], 1);
    EXPECT_EQ(a["cost"]["ncu_runs"], 0);
    EXPECT_EQ(b["cost"]["ncu_runs"], 1);
    EXPECT_LT(a["cost"]["replay_passes"].get<int>(), b["cost"]["replay_passes"].get<int>());
    ASSERT_FALSE(a["kernels"][0]["findings"].empty()) << a.dump();
    EXPECT_EQ(a["kernels"][0]["findings"][0]["tool"], "shared_bank_conflicts");
    EXPECT_EQ(a["kernels"][0]["findings"][0]["tool"], b["kernels"][0]["findings"][0]["tool"]);
    EXPECT_EQ(a["kernels"][0]["roofline"]["class"], b["kernels"][0]["roofline"]["class"]);

    // Two stages (the roofline, then the class's tools) both in the worker: the same finding.
    auto options = fresh(kp::diagnose::CounterSource::cupti);
    options.stages = kp::analysis::StagePlan::two_runs;
    auto staged = profile_kernel(task, kernel, options);
    ASSERT_TRUE(staged.ok) << staged.error;
    const auto& c = staged.report;
    EXPECT_EQ(c["cost"]["cupti_runs"], 2) << c["notes"].dump();
    EXPECT_EQ(c["cost"]["worker_starts"], 1) << c["commands"].dump();  // stage 2 follows in the same worker
    EXPECT_EQ(c["cost"]["ncu_runs"], 0);
    ASSERT_FALSE(c["kernels"][0]["findings"].empty()) << c.dump();
    EXPECT_EQ(c["kernels"][0]["findings"][0]["tool"], "shared_bank_conflicts");
}

// A profiling tree's stage 2 (a chooser of each kernel's tools) follows in the worker that counted
// the roofline, started once: the chosen tool's counters, then the PC samples the choice takes;
// the call's trace is not taken, since no chosen tool reads it.
TEST(ProfileOnGpu, StageTwoFollowsInTheSameWorker) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_gpu()) GTEST_SKIP() << "no GPU: counters need one (scripts/gpu-check profile runs this)";
    const std::string task = kCorpus + "/task";
    const std::string kernel = kCorpus + "/bank_conflict_transpose.cu";
    auto options = fresh(kp::diagnose::CounterSource::cupti);
    options.tools = kp::analysis::default_tool_registry().names();
    options.named_collectors.insert("timeline");  // asked for by name: still only when a choice reads it
    options.stage2_choice = [](const kp::analysis::ProfileData&, const kp::analysis::RooflineResult&) {
        return kp::diagnose::Stage2Choice{{"shared_bank_conflicts"}, true};
    };
    auto run = profile_kernel(task, kernel, options);
    ASSERT_TRUE(run.ok) << run.error;
    const auto& r = run.report;
    EXPECT_EQ(r["cost"]["cupti_runs"], 2) << r["notes"].dump();
    EXPECT_EQ(r["cost"]["worker_starts"], 1) << r["commands"].dump();
    EXPECT_EQ(r["cost"]["ncu_runs"], 0);
    EXPECT_TRUE(r["cost"]["worker_seconds"].contains("pc_sampling")) << r["cost"].dump();
    EXPECT_EQ(r["cost"]["timeline_source"], "") << r["notes"].dump();
    EXPECT_NE(r["notes"].dump().find("timeline: not taken"), std::string::npos) << r["notes"].dump();
    ASSERT_FALSE(r["kernels"][0]["findings"].empty()) << r.dump();
    const auto& top = r["kernels"][0]["findings"][0];
    EXPECT_EQ(top["tool"], "shared_bank_conflicts");
    bool sampled = false;
    for (const auto& e : top["evidence"]) sampled = sampled || e.value("sampled", false);
    EXPECT_TRUE(sampled) << top.dump();  // the lines came from the follow-up's samples

    // The choice takes no samples: none are taken, and the follow-up counts only the tool's counters.
    options.stage2_choice = [](const kp::analysis::ProfileData&, const kp::analysis::RooflineResult&) {
        return kp::diagnose::Stage2Choice{{"shared_bank_conflicts"}, false};
    };
    auto plain = profile_kernel(task, kernel, options);
    ASSERT_TRUE(plain.ok) << plain.error;
    EXPECT_EQ(plain.report["cost"]["worker_starts"], 1);
    EXPECT_FALSE(plain.report["cost"]["worker_seconds"].contains("pc_sampling")) << plain.report["cost"].dump();
}

// When the worker cannot count (here: the counters library it is pointed at is not one), the default
// profile says why and counts with ncu instead; CounterSource::cupti fails instead.
TEST(ProfileOnGpu, FallsBackToNcuWhenTheWorkerCannotCount) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_gpu()) GTEST_SKIP() << "no GPU: counters need one (scripts/gpu-check profile runs this)";
    if (!kp::profile::locate_nvidia_tool("ncu")) GTEST_SKIP() << "no ncu to fall back to";
    auto helpers = std::filesystem::temp_directory_path() / "kp-fake-helpers";
    std::filesystem::create_directories(helpers);
    std::ofstream(helpers / "libkp_counters.so") << "not a shared library\n";
    const char* saved = std::getenv("KERNELPRO_HELPER_DIR");
    const std::string saved_value = saved ? saved : "";
    ::setenv("KERNELPRO_HELPER_DIR", helpers.c_str(), 1);
    const std::string task = kCorpus + "/task";
    const std::string kernel = kCorpus + "/small_grid.cu";
    auto fallback = profile_kernel(task, kernel, fresh());
    auto strict = profile_kernel(task, kernel, fresh(kp::diagnose::CounterSource::cupti));
    if (saved) ::setenv("KERNELPRO_HELPER_DIR", saved_value.c_str(), 1);
    else ::unsetenv("KERNELPRO_HELPER_DIR");
    std::filesystem::remove_all(helpers);

    ASSERT_TRUE(fallback.ok) << fallback.error;
    const auto& report = fallback.report;
    EXPECT_EQ(report["cost"]["cupti_runs"], 0);
    EXPECT_EQ(report["cost"]["ncu_runs"], 1);
    EXPECT_NE(report["notes"].dump().find("counters in the worker failed, using ncu"), std::string::npos) << report["notes"].dump();
    ASSERT_FALSE(report["kernels"][0]["findings"].empty());
    EXPECT_EQ(report["kernels"][0]["findings"][0]["tool"], "small_grid_tail");
    ASSERT_TRUE(strict.ok) << strict.error;
    EXPECT_NE(strict.report["environment_error"].get<std::string>().find("counters library"), std::string::npos)
        << strict.report.dump();
}

// CUPTI's host API plans counters for a chip without one: every counter the roofline and the tools
// ask for must be countable on the H100/H200 chip, in fewer passes than ncu took for them (9).
TEST(CuptiCounterPlan, EveryToolCounterCountsOnGH100) {
    auto library = kp::gpu::find_helper("libkp_counters.so");
    if (!library) GTEST_SKIP() << "libkp_counters.so was not built (no CUPTI in this CUDA toolkit)";
    auto tools = kp::analysis::tool_list_json();
    std::vector<std::string> metrics = tools["stage1_metrics"];
    for (const auto& t : tools["tools"])
        for (const auto& m : t["metrics"]) metrics.push_back(m);
    auto plan = kp::profile::plan_counters(*library, "GH100", metrics);
    ASSERT_TRUE(plan) << plan.error().message;
    EXPECT_TRUE(plan->unsupported.empty()) << plan->unsupported.front();
    EXPECT_GT(plan->passes, 1);
    EXPECT_LT(plan->passes, 9);
    // A name no chip has is reported by name.
    metrics.push_back("kernelpro__no_such_counter.sum");
    auto bad = kp::profile::plan_counters(*library, "GH100", metrics);
    ASSERT_TRUE(bad) << bad.error().message;
    ASSERT_EQ(bad->unsupported.size(), 1u);
    EXPECT_EQ(bad->unsupported[0], "kernelpro__no_such_counter.sum");
}
