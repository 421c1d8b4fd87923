// The call-level profile on constructed kernels and diagnoses: launches grouped by kernel and
// configuration, findings ranked by their gain on the whole call, a kernel of a few percent never
// the headline, the launch overhead counted once.
#include <gtest/gtest.h>

#include "analysis/call_profile.h"
#include "analysis/feedback.h"

using namespace kp::analysis;

namespace {

Diagnosis diagnosis_with(std::string kernel, std::vector<Finding> findings) {
    Diagnosis d;
    d.kernel_name = std::move(kernel);
    d.findings = std::move(findings);
    return d;
}

size_t count_of(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace

TEST(GroupLaunches, RepeatedLaunchesOfOneConfigurationAreOneGroup) {
    std::vector<KernelLaunch> launches;
    launches.push_back({"zero_output(float *)", "(1, 1, 1)", "(1, 1, 1)", 2e-6});
    for (int i = 0; i < 256; ++i) launches.push_back({"add_slice(const float *, float *)", "(64, 1, 1)", "(256, 1, 1)", (3.0 + i % 5) * 1e-6});
    auto groups = group_launches(launches);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].kernel_name, "add_slice(const float *, float *)");
    EXPECT_EQ(groups[0].launches, 256);
    EXPECT_NEAR(groups[0].seconds, 1278e-6, 1e-12);  // 52 x 3 us + 51 x (4 + 5 + 6 + 7) us
    // The representative is a launch of median duration (5 us), not the first or the longest.
    EXPECT_DOUBLE_EQ(launches[groups[0].representative].seconds, 5e-6);
    EXPECT_EQ(groups[1].launches, 1);
    EXPECT_EQ(groups[1].representative, 0u);
}

TEST(GroupLaunches, OneFunctionWithTwoGridsStaysTwoGroups) {
    std::vector<KernelLaunch> launches = {{"k(float *)", "(64, 1, 1)", "(256, 1, 1)", 1e-5},
                                          {"k(float *)", "(1, 1, 1)", "(256, 1, 1)", 1e-6},
                                          {"k(float *)", "(64, 1, 1)", "(256, 1, 1)", 1e-5}};
    auto groups = group_launches(launches);
    ASSERT_EQ(groups.size(), 2u);
    EXPECT_EQ(groups[0].grid, "(64, 1, 1)");
    EXPECT_EQ(groups[0].launches, 2);
    EXPECT_EQ(groups[1].launches, 1);
}

TEST(GroupLaunches, TheTimelineCountsWhatTheCountersLeftOut) {
    std::vector<KernelLaunch> launches;
    for (int i = 0; i < 16; ++i) launches.push_back({"add_slice(const float *, float *)", "(64, 1, 1)", "(256, 1, 1)", 4e-6});
    auto groups = group_launches(launches);
    kp::gpu::TimelineSummary timeline;
    timeline.calls = 2;
    kp::gpu::KernelSummary traced;
    traced.name = "_Z9add_slicePKfPf";  // CUPTI's mangled name
    traced.launches_per_call = 256;
    traced.duration.count = 512;
    traced.duration.total_ns = 512 * 4000;
    timeline.kernels.push_back(traced);
    complete_from_timeline(groups, timeline);
    ASSERT_EQ(groups.size(), 1u);
    EXPECT_EQ(groups[0].launches, 256);
    EXPECT_NEAR(groups[0].seconds, 256 * 4e-6, 1e-9);
}

// The zero-initialising kernel plus the atomic sum: the 95% tail of a 1-thread kernel that takes
// 0.02% of the call is worth nothing on the call; the atomic finding heads it.
TEST(CallProfile, ATinyKernelsFindingIsWeighedByItsShare) {
    std::vector<CallKernel> kernels = {{"zero_output(float *)", "(1, 1, 1)", "(1, 1, 1)", 1, 2e-6, 0},
                                       {"atomic_sum(const float *, float *, long)", "(262144, 1, 1)", "(256, 1, 1)", 1, 10e-3, 0}};
    Diagnosis zero = diagnosis_with("zero_output(float *)", {make_finding("small_grid_tail", 0.95, "1 block on 132 SMs")});
    Diagnosis sum = diagnosis_with("atomic_sum(const float *, float *, long)",
                                   {make_finding("atomic_contention", 0.80, "one L2 slice serializes the atomics"),
                                    make_finding("narrow_global_access", 0.10, "32-bit loads")});
    CallProfile call = profile_call(kernels, {&zero, &sum});
    EXPECT_NEAR(call.gpu_seconds, 10.002e-3, 1e-9);
    EXPECT_EQ(call.launches, 2);
    ASSERT_EQ(call.kernels.size(), 2u);
    EXPECT_EQ(call.kernels[0].kernel_name, "atomic_sum(const float *, float *, long)");
    EXPECT_NEAR(call.kernels[0].share, 10e-3 / 10.002e-3, 1e-9);
    ASSERT_EQ(call.findings.size(), 2u);
    EXPECT_EQ(call.findings[0].finding.tool, "atomic_contention");
    EXPECT_NEAR(call.findings[0].call_gain, 0.80 * call.kernels[0].share, 1e-9);
    EXPECT_EQ(call.findings[1].finding.tool, "narrow_global_access");
    for (const auto& f : call.findings) EXPECT_NE(f.finding.tool, "small_grid_tail");
}

// A kernel under a tenth of the call ranks after every finding of the larger kernels, even when
// its share times its gain is higher.
TEST(CallProfile, AKernelOfAFewPercentIsNeverTheHeadline) {
    std::vector<CallKernel> kernels = {{"big(float *)", "(512, 1, 1)", "(256, 1, 1)", 1, 92e-6, 0},
                                       {"small(float *)", "(1, 1, 1)", "(32, 1, 1)", 1, 8e-6, 0}};
    Diagnosis big = diagnosis_with("big(float *)", {make_finding("narrow_global_access", 0.07, "32-bit loads")});
    Diagnosis small = diagnosis_with("small(float *)", {make_finding("small_grid_tail", 0.95, "1 block")});
    CallProfile call = profile_call(kernels, {&big, &small});
    ASSERT_EQ(call.findings.size(), 2u);
    EXPECT_EQ(call.findings[0].finding.tool, "narrow_global_access");
    EXPECT_LT(call.findings[0].call_gain, call.findings[1].call_gain);
    EXPECT_EQ(call.findings[1].kernel_name, "small(float *)");
}

// Every kernel of the call sees the same timeline, so each reports the launch overhead: the call
// gets it once, for the call, at its own gain (it is already a share of the call's span).
TEST(CallProfile, LaunchOverheadIsOneFindingOfTheCall) {
    std::vector<CallKernel> kernels = {{"add_slice(const float *, float *)", "(64, 1, 1)", "(256, 1, 1)", 256, 256 * 3e-6, 0},
                                       {"finish(float *)", "(1, 1, 1)", "(256, 1, 1)", 1, 3e-6, 0}};
    Finding overhead = make_finding("launch_overhead", 0.45, "257 kernel launches leave the GPU idle 45% of the time");
    Diagnosis a = diagnosis_with(kernels[0].kernel_name, {overhead, make_finding("small_grid_tail", 0.5, "64 blocks on 132 SMs")});
    Diagnosis b = diagnosis_with(kernels[1].kernel_name, {overhead});
    CallProfile call = profile_call(kernels, {&a, &b});
    ASSERT_EQ(call.findings.size(), 2u);
    EXPECT_EQ(call.findings[0].finding.tool, "small_grid_tail");  // 0.5 x 99.6% of the call
    EXPECT_EQ(call.findings[1].finding.tool, "launch_overhead");
    EXPECT_EQ(call.findings[1].kernel_name, "");
    EXPECT_DOUBLE_EQ(call.findings[1].call_gain, 0.45);
    EXPECT_EQ(call.launches, 257);
}

TEST(CallProfile, ToolsThatReadOnlyTheTimelineJudgeTheCall) {
    const ToolRegistry& registry = default_tool_registry();
    ASSERT_NE(registry.find("launch_overhead"), nullptr);
    EXPECT_TRUE(judges_the_call(*registry.find("launch_overhead")));
    for (const MicroTool* tool : registry.all())
        if (tool->name() != "launch_overhead") {
            EXPECT_FALSE(judges_the_call(*tool)) << tool->name();
        }
}

TEST(CallFeedback, NamesEachKernelOnceWithItsShareAndLaunches) {
    std::vector<CallKernel> kernels = {{"add_slice(const float *, float *)", "(64, 1, 1)", "(256, 1, 1)", 256, 256 * 3e-6, 0},
                                       {"zero_output(float *)", "(1, 1, 1)", "(1, 1, 1)", 1, 2e-6, 0}};
    Finding tail = make_finding("small_grid_tail", 0.5, "64 blocks on 132 SMs");
    tail.guidance = "Launch more blocks.";
    tail.evidence.push_back(text_evidence(Evidence::Kind::source, "sum.cu:12", "atomicAdd(y, v);"));
    Diagnosis a = diagnosis_with(kernels[0].kernel_name, {tail});
    Diagnosis b = diagnosis_with(kernels[1].kernel_name, {make_finding("small_grid_tail", 0.95, "1 block")});
    CallProfile call = profile_call(kernels, {&a, &b});
    const std::string text = render_call_feedback(call);
    EXPECT_EQ(count_of(text, "add_slice"), 2u) << text;  // its share line, then its finding
    EXPECT_NE(text.find("256 launches"), std::string::npos) << text;
    EXPECT_NE(text.find("1. add_slice, 100% of the call: 64 blocks on 132 SMs"), std::string::npos) << text;
    EXPECT_NE(text.find("evidence: sum.cu:12 = atomicAdd(y, v);"), std::string::npos) << text;
    EXPECT_EQ(text.find("1 block\n"), std::string::npos) << text;  // the zero kernel's 95% is worth nothing here
    EXPECT_TRUE(shows_more_than_one_kernel(call));

    const auto json = to_json(call);
    EXPECT_EQ(json["kernels"][0]["launches"], 256);
    EXPECT_EQ(json["findings"][0]["kernel"], kernels[0].kernel_name);
    EXPECT_NEAR(json["findings"][0]["call_gain"].get<double>(), 0.5 * call.kernels[0].share, 1e-12);
    EXPECT_NE(render_call_report(call).find("small_grid_tail on add_slice"), std::string::npos) << render_call_report(call);
}

TEST(CallFeedback, OneKernelLaunchedOnceShowsNoCallView) {
    CallProfile call = profile_call({{"k(float *)", "(64, 1, 1)", "(256, 1, 1)", 1, 1e-3, 0}}, {nullptr});
    EXPECT_FALSE(shows_more_than_one_kernel(call));
    EXPECT_DOUBLE_EQ(call.kernels[0].share, 1.0);
}
