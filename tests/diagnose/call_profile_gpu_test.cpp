// The call-level profile live on the GPU (scripts/gpu-check profile runs these; skipped here with
// the reason), on the multi-kernel candidates of tests/profile_calls: the call's ranking, one entry
// per repeated kernel, the timeline traced inside the counters run, and the whole profile in under
// 3 s (the two-kernel call took 12.6 s when the timeline had a worker run of its own).
#include <gtest/gtest.h>

#include "../gpu_test_support.h"
#include "profile_fixture.h"

using namespace kp::testing;

namespace {

const std::string kCalls = kSource + "/tests/profile_calls";

Profiled profile_fresh(const std::string& candidate) {
    kp::diagnose::ProfileOptions options;
    options.use_cache = false;
    return profile_kernel(kCalls + "/task", kCalls + "/" + candidate + ".cu", options);
}

void expect_cheap_timeline(const nlohmann::json& report) {
    EXPECT_EQ(report["cost"]["timeline_source"], "counters run") << report["notes"].dump();
    EXPECT_EQ(report["cost"]["cupti_runs"], 1) << report["notes"].dump();
    EXPECT_EQ(report["cost"]["ncu_runs"], 0);
    EXPECT_LT(report["cost"]["seconds"].get<double>(), 3.0) << report["cost"].dump();
    EXPECT_LT(report["cost"]["collector_seconds"].value("timeline", 0.0), 0.5) << report["cost"].dump();
}

}  // namespace

TEST(CallProfileOnGpu, ZeroKernelPlusAtomicSum) {
    KP_SKIP_WITHOUT_GPU();
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    auto run = profile_fresh("zero_then_atomic_sum");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& report = run.report;
    EXPECT_EQ(report["environment_error"], "") << report.dump();
    expect_cheap_timeline(report);
    ASSERT_TRUE(report["call"].is_object()) << report.dump();
    const auto& call = report["call"];
    EXPECT_EQ(call["launches"], 2);
    ASSERT_EQ(call["kernels"].size(), 2u);
    EXPECT_EQ(call["kernels"][0]["kernel"], "atomic_sum(float const*, float*, long)");
    EXPECT_GT(call["kernels"][0]["share"].get<double>(), 0.95);
    ASSERT_FALSE(call["findings"].empty()) << call.dump();
    EXPECT_EQ(call["findings"][0]["kernel"], "atomic_sum(float const*, float*, long)") << call["findings"].dump();
    EXPECT_EQ(call["findings"][0]["tool"], "atomic_contention") << call["findings"].dump();
    for (const auto& f : call["findings"]) EXPECT_NE(f["kernel"], "zero_output(float*)") << f.dump();

    // PC sampling in the same counters run: the atomic finding quotes the line of the atomicAdd.
    EXPECT_EQ(report["notes"].dump().find("pc sampling:"), std::string::npos) << report["notes"].dump();
    const auto& evidence = call["findings"][0]["evidence"];
    ASSERT_FALSE(evidence.empty());
    EXPECT_EQ(evidence[0]["kind"], "source") << evidence.dump();
    EXPECT_NE(evidence[0]["name"].get<std::string>().find("zero_then_atomic_sum.cu:11"), std::string::npos) << evidence.dump();
    EXPECT_NE(evidence[0]["value"].get<std::string>().find("atomicAdd(y, x[i]);"), std::string::npos) << evidence.dump();
    EXPECT_NE(run.feedback.find("atomicAdd(y, x[i]);"), std::string::npos) << run.feedback;
}

TEST(CallProfileOnGpu, ManySmallLaunchesOfOneKernel) {
    KP_SKIP_WITHOUT_GPU();
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    auto run = profile_fresh("many_small_launches");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& report = run.report;
    EXPECT_EQ(report["environment_error"], "") << report.dump();
    expect_cheap_timeline(report);
    ASSERT_EQ(report["kernels"].size(), 1u) << report["kernels"].dump().substr(0, 2000);
    EXPECT_EQ(report["kernels"][0]["launches"], 256);
    ASSERT_TRUE(report["call"].is_object());
    int overhead = 0;
    for (const auto& f : report["call"]["findings"]) overhead += f["tool"] == "launch_overhead";
    EXPECT_EQ(overhead, 1) << report["call"]["findings"].dump();
}
