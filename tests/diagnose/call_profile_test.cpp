// The call-level profile through the whole pipeline, on constructed multi-kernel counters replies
// (tests/fixtures/h200-calls, README: constructed from recorded H200 ranges, not recorded as a
// call) replayed with --ncu-csv: the candidates of tests/profile_calls are built and disassembled
// here, the counters and the traced call's timeline come from the reply.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "profile_fixture.h"

using namespace kp::testing;

namespace {

const std::string kCalls = kSource + "/tests/profile_calls";
const std::string kCallFixtures = kSource + "/tests/fixtures/h200-calls/";

Profiled replay(const std::string& candidate) {
    kp::diagnose::ProfileOptions options;
    options.ncu_csv = kCallFixtures + candidate + ".counters.json";
    options.ceilings_file = kCorpusFixtures + "ceilings.json";
    return profile_kernel(kCalls + "/task", kCalls + "/" + candidate + ".cu", options);
}

size_t count_of(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace

// The 1-thread zeroing kernel plus the atomic sum: the atomic finding heads the call; the zeroing
// kernel's 95% small-grid tail (0.1% of the call) is no call finding at all.
TEST(CallLevelProfile, TheBigKernelsFindingHeadsTheCall) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    auto run = replay("zero_then_atomic_sum");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& report = run.report;
    ASSERT_TRUE(report["call"].is_object()) << report.dump();
    const auto& call = report["call"];
    EXPECT_EQ(call["launches"], 2);
    ASSERT_EQ(call["kernels"].size(), 2u);
    EXPECT_EQ(call["kernels"][0]["kernel"], "atomic_sum(float const*, float*, long)");
    EXPECT_GT(call["kernels"][0]["share"].get<double>(), 0.99);
    EXPECT_LT(call["kernels"][1]["share"].get<double>(), 0.01);
    ASSERT_FALSE(call["findings"].empty()) << call.dump();
    EXPECT_EQ(call["findings"][0]["kernel"], "atomic_sum(float const*, float*, long)") << call["findings"].dump();
    for (const auto& f : call["findings"]) {
        EXPECT_NE(f["kernel"], "zero_output(float*)") << f.dump();
        EXPECT_GE(f["call_gain"].get<double>(), 0.05);
    }
    // The per-kernel view stays, each kernel once, with its share; the zeroing kernel still gets
    // its own diagnosis there (a 1-block grid), just not the call's headline.
    ASSERT_EQ(report["kernels"].size(), 2u);
    EXPECT_EQ(report["kernels"][0]["launches"], 1);
    EXPECT_LT(report["kernels"][1]["call_share"].get<double>(), 0.01);
    // The call's timeline came with the reply: no separate traced run.
    EXPECT_EQ(report["cost"]["timeline_source"], "counters run");
    EXPECT_NE(run.text.find("Call findings (ranked by the share of the call's time a fix could save):\n  1. "), std::string::npos)
        << run.text;
    EXPECT_NE(run.feedback.find("Profile of the call: 2 kernel launches"), std::string::npos) << run.feedback;
    EXPECT_NE(run.feedback.find("1. atomic_sum, 100% of the call: "), std::string::npos) << run.feedback;

    // The reply's PC samples, through the built kernel's line info: the finding quotes the line of
    // the atomicAdd (the REDG and the LDG behind it), in the JSON and in the LLM's feedback.
    const auto& evidence = call["findings"][0]["evidence"];
    ASSERT_FALSE(evidence.empty()) << call["findings"][0].dump();
    EXPECT_EQ(evidence[0]["kind"], "source") << evidence.dump();
    EXPECT_NE(evidence[0]["name"].get<std::string>().find("zero_then_atomic_sum.cu:11"), std::string::npos) << evidence.dump();
    const std::string quoted = evidence[0]["value"].get<std::string>();
    EXPECT_EQ(quoted.rfind("if (i < n) atomicAdd(y, x[i]);  [", 0), 0u) << quoted;
    EXPECT_NE(quoted.find("REDG.E.ADD.F32"), std::string::npos) << quoted;
    EXPECT_NE(run.feedback.find("= if (i < n) atomicAdd(y, x[i]);"), std::string::npos) << run.feedback;
}

// 256 launches of one kernel: summarised once with the timeline's launch count (the counters saw
// the first 16), and the launch overhead reported once, for the call.
TEST(CallLevelProfile, RepeatedLaunchesAreOneKernelWithACount) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    auto run = replay("many_small_launches");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& report = run.report;
    ASSERT_EQ(report["kernels"].size(), 1u) << report["kernels"].dump().substr(0, 2000);
    EXPECT_EQ(report["kernels"][0]["launches"], 256);
    EXPECT_EQ(report["kernels"][0]["grid"], "(64, 1, 1)");
    ASSERT_TRUE(report["call"].is_object());
    const auto& call = report["call"];
    EXPECT_EQ(call["launches"], 256);
    // The call's GPU time is its 256 kernels' (the recorded timeline: 1.9-2.0 us each), not the span.
    EXPECT_GT(call["gpu_seconds"].get<double>(), 256 * 1.5e-6);
    EXPECT_LT(call["gpu_seconds"].get<double>(), 256 * 2.5e-6);
    int overhead = 0;
    for (const auto& f : call["findings"])
        if (f["tool"] == "launch_overhead") {
            ++overhead;
            EXPECT_TRUE(f["kernel"].is_null()) << f.dump();  // the call's, not a kernel's
            EXPECT_GT(f["call_gain"].get<double>(), 0.3);    // 2.7 us idle after each ~3.4 us kernel
        }
    EXPECT_EQ(overhead, 1) << call["findings"].dump();
    EXPECT_NE(report["notes"].dump().find("240 kernel launches past the limit"), std::string::npos) << report["notes"].dump();
    EXPECT_EQ(count_of(run.feedback, "launch_overhead"), 0u) << run.feedback;  // prose for the LLM, tool ids for code
    EXPECT_EQ(count_of(run.feedback, "kernel launches leave the GPU idle"), 1u) << run.feedback;
    EXPECT_NE(run.feedback.find("add_slice 100% (256 launches"), std::string::npos) << run.feedback;
}

// A JSON file that is no counters reply is one clear error, not a crash.
TEST(CallLevelProfile, AMalformedReplyIsOneClearError) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    const auto file = std::filesystem::temp_directory_path() / "kp-malformed-reply.json";
    std::ofstream(file) << R"({"ranges": 3, "launches": []})";
    kp::diagnose::ProfileOptions options;
    options.ncu_csv = file;
    options.ceilings_file = kCorpusFixtures + "ceilings.json";
    auto run = profile_kernel(kCalls + "/task", kCalls + "/zero_then_atomic_sum.cu", options);
    std::filesystem::remove(file);
    EXPECT_FALSE(run.ok);
    EXPECT_NE(run.error.find("kp-malformed-reply.json: not a counters reply"), std::string::npos) << run.error;
}
