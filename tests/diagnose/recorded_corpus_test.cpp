// The validation corpus on counters recorded on the H200 (tests/fixtures/h200-corpus, written by
// `scripts/gpu-check corpus`): the kernels are built and disassembled here, the counters replayed
// from each recording (ncu's CSV and the worker's CUPTI reply), so the whole pipeline after the
// counters runs on CI. The named tool must
// rank first, the healthy kernel must draw no finding above its max_gain, and the top finding's
// first source line must be one of the kernel's `lines` (tests/profile_corpus/manifest.toml).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "corpus_manifest.h"
#include "profile_fixture.h"

using namespace kp::testing;

namespace {

std::string listing(const nlohmann::json& findings) {
    std::string out;
    for (const auto& f : findings) out += "  " + f["tool"].get<std::string>() + " " + std::to_string(f["estimated_gain"].get<double>()) + "\n";
    return out;
}

class RecordedCorpus : public ::testing::TestWithParam<std::tuple<CorpusKernel, Recording>> {};

}  // namespace

TEST_P(RecordedCorpus, RightToolRanksFirst) {
    const auto& [k, recording] = GetParam();
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernel cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the SASS tools cannot judge";
    if (!judges(k, recording)) GTEST_SKIP() << k.file << " is judged from the call's timeline, which ncu's recorded page does not carry "
                                            << "(its CUPTI reply does: the _cupti case)";
    if (!std::filesystem::exists(recorded_counters(k, recording)))
        GTEST_SKIP() << "no counters recorded for " << k.file << " yet: run `scripts/gpu-check corpus` on a GPU and copy "
                     << "recorded/" << std::filesystem::path(recorded_counters(k, recording)).filename().string()
                     << " from its reports.tgz into tests/fixtures/h200-corpus";
    kp::diagnose::ProfileOptions options;
    options.ncu_csv = recorded_counters(k, recording);
    options.ceilings_file = kCorpusFixtures + "ceilings.json";
    auto run = profile_kernel(kCorpus + "/task", kCorpus + "/" + k.file, options);
    ASSERT_TRUE(run.ok) << run.error;
    const auto& report = run.report;
    ASSERT_FALSE(report["kernels"].empty());
    const auto& kernel = report["kernels"][0];
    EXPECT_TRUE(kernel["roofline_known"].get<bool>());
    EXPECT_NE(report["ceilings"].get<std::string>().find("measured"), std::string::npos);
    // ncu's own pass count (profiler__replayer_passes) travels with the recorded counters.
    EXPECT_NE(report["notes"].dump().find(" replay passes when recorded"), std::string::npos) << report["notes"].dump();
    EXPECT_EQ(report["notes"].dump().find("; 0 replay passes"), std::string::npos) << report["notes"].dump();
    // Our occupancy calculator agrees with the driver's calculation for the real launch (ncu's
    // launch__occupancy_limit_*), which the profile uses; a disagreement would be noted.
    EXPECT_EQ(report["notes"].dump().find("our calculator gives"), std::string::npos) << report["notes"].dump();
    const auto& findings = kernel["findings"];
    if (k.expect == "none") {
        for (const auto& f : findings) EXPECT_LE(f["estimated_gain"].get<double>(), k.max_gain) << listing(findings);
        return;
    }
    ASSERT_FALSE(findings.empty()) << k.file << ": no finding";
    EXPECT_EQ(findings[0]["tool"], k.expect) << k.file << ":\n" << listing(findings);
    // Evidence points at the candidate's own source, not the build cache's copy.
    const std::string text = findings[0].dump();
    if (text.find(".cu:") != std::string::npos) {
        EXPECT_NE(text.find(k.file), std::string::npos) << text;
    }
    // The line to change: PC samples (in the CUPTI reply only) put one of the manifest's lines first
    // among the top finding's source lines, and the LLM's feedback quotes it.
    if (recording != Recording::cupti || k.lines.empty()) return;
    std::string first;
    for (const auto& e : findings[0]["evidence"])
        if (e["kind"] == "source") {
            first = e["name"].get<std::string>();
            break;
        }
    ASSERT_FALSE(first.empty()) << k.file << ": no source line among the evidence\n" << findings[0]["evidence"].dump(1);
    const int line = std::stoi(first.substr(first.rfind(':') + 1));
    EXPECT_NE(std::find(k.lines.begin(), k.lines.end(), line), k.lines.end()) << k.file << ": quotes line " << line << "\n"
                                                                             << findings[0]["evidence"].dump(1);
    EXPECT_NE(run.feedback.find(k.file + ":" + std::to_string(line)), std::string::npos) << run.feedback;
    // A line the summary names (the culprit instruction's, by PC samples) is one of them too.
    const std::string summary = findings[0]["summary"].get<std::string>();
    if (auto at = summary.find(k.file + ":"); at != std::string::npos) {
        const int named = std::stoi(summary.substr(at + k.file.size() + 1));
        EXPECT_NE(std::find(k.lines.begin(), k.lines.end(), named), k.lines.end()) << summary;
    }
}

INSTANTIATE_TEST_SUITE_P(H200, RecordedCorpus,
                         ::testing::Combine(::testing::ValuesIn(corpus_manifest()), ::testing::Values(Recording::ncu, Recording::cupti)),
                         [](const ::testing::TestParamInfo<std::tuple<CorpusKernel, Recording>>& info) {
                             return corpus_stem(std::get<0>(info.param).file) + "_" + recording_name(std::get<1>(info.param));
                         });

// With datasheet ceilings the scalar copy reads as latency-bound (DRAM 54% of the 4.8 TB/s
// datasheet peak) and warps wait on long scoreboard; the narrow 32-bit accesses are the cause, so
// long_scoreboard_latency leaves those stalls to narrow_global_access instead of ranking the symptom.
TEST(RecordedCorpusDatasheet, NarrowAccessesExplainTheLongScoreboardStalls) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernel cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the SASS tools cannot judge";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: its cached ceilings would replace the datasheet";
    kp::diagnose::ProfileOptions options;
    options.ncu_csv = kCorpusFixtures + "narrow_scalar_copy.raw.csv";
    auto run = profile_kernel(kCorpus + "/task", kCorpus + "/narrow_scalar_copy.cu", options);
    ASSERT_TRUE(run.ok) << run.error;
    const auto& kernel = run.report["kernels"][0];
    EXPECT_EQ(kernel["roofline"]["class"], "latency-bound");
    ASSERT_FALSE(kernel["findings"].empty());
    EXPECT_EQ(kernel["findings"][0]["tool"], "narrow_global_access");
    for (const auto& f : kernel["findings"]) EXPECT_NE(f["tool"], "long_scoreboard_latency") << f.dump();
}
