// `kernelpro profile` through its CLI11 registration, as main.cpp runs it: --list-tools, usage
// errors, and the GPU-free path (SASS/ptxas-only findings, exit 3 naming what needs a GPU).
// Tests that compile a kernel skip without nvcc; with a GPU present the no-GPU expectations skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "analysis/roofline.h"
#include "analysis/tool_registry.h"
#include "cli/commands.h"
#include "cli/profile_pipeline.h"
#include "gpu/cuda_driver.h"
#include "gpu/helper_paths.h"
#include "profile/cupti_counter_collector.h"
#include "profile/tool_locator.h"

namespace {

struct CommandRun {
    int exit_code = -1;
    std::string out, err;
};

CommandRun run_profile(std::vector<std::string> args) {
    CLI::App app{"kernelpro"};
    kp::cli::Handler handler = kp::cli::register_profile(app);
    std::vector<const char*> argv = {"kernelpro", "profile"};
    for (const auto& a : args) argv.push_back(a.c_str());
    app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
    testing::internal::CaptureStdout();
    testing::internal::CaptureStderr();
    CommandRun run;
    run.exit_code = handler();
    run.out = testing::internal::GetCapturedStdout();
    run.err = testing::internal::GetCapturedStderr();
    return run;
}

const std::string kSource = KP_SOURCE_DIR;
const std::string kTask = kSource + "/tasks/transpose_f32";

bool have_nvcc() { return kp::profile::locate_nvidia_tool("nvcc").has_value(); }
bool have_gpu() { return kp::gpu::CudaDriver::load().ok(); }
bool have_sass_tools() {
    return kp::profile::locate_nvidia_tool("nvdisasm").has_value() && kp::profile::locate_nvidia_tool("cuobjdump").has_value();
}

}  // namespace

TEST(ProfileCommand, ListToolsNeedsNoTaskAndNamesEveryTool) {
    auto run = run_profile({"--list-tools"});
    EXPECT_EQ(run.exit_code, 0);
    auto tools = kp::analysis::default_tool_registry().all();
    ASSERT_GE(tools.size(), 15u);
    size_t lines = std::count(run.out.begin(), run.out.end(), '\n');
    EXPECT_EQ(lines, tools.size());
    for (const auto* tool : tools) EXPECT_NE(run.out.find(std::string(tool->name())), std::string::npos) << tool->name();
    EXPECT_NE(run.out.find("classes="), std::string::npos);
    EXPECT_NE(run.out.find("needs="), std::string::npos);
    EXPECT_NE(run.out.find("timeline"), std::string::npos);
}

TEST(ProfileCommand, ListToolsJsonCarriesEveryMetric) {
    auto run = run_profile({"--list-tools", "--json"});
    EXPECT_EQ(run.exit_code, 0);
    auto doc = nlohmann::json::parse(run.out);
    EXPECT_EQ(doc["schema"], "kernelpro.tools/1");
    EXPECT_EQ(doc["tools"].size(), kp::analysis::default_tool_registry().all().size());
    EXPECT_FALSE(doc["stage1_metrics"].empty());
    for (const auto& tool : doc["tools"])
        if (tool["name"] == "shared_bank_conflicts") {
            EXPECT_TRUE(tool["source_page"].get<bool>());
            EXPECT_GE(tool["metrics"].size(), 4u);
        }
}

TEST(CollectorList, PlainListReplacesPlusAddsMinusRemoves) {
    using kp::cli::apply_collector_list;
    const auto& base = kp::cli::default_profile_collectors();
    EXPECT_FALSE(base.count("source")) << "the source page costs ~12 passes: opt-in";
    auto plus = apply_collector_list({"+source"}, base);
    ASSERT_TRUE(plus);
    EXPECT_TRUE(plus->first.count("source"));
    EXPECT_TRUE(plus->first.count("ncu"));
    EXPECT_FALSE(plus->second);
    auto minus = apply_collector_list({"-timeline", "-occupancy"}, base);
    ASSERT_TRUE(minus);
    EXPECT_FALSE(minus->first.count("timeline"));
    EXPECT_FALSE(minus->first.count("occupancy"));
    EXPECT_TRUE(minus->first.count("sass"));
    auto plain = apply_collector_list({"sass", "timeline"}, base);
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->first, (std::set<std::string>{"sass", "timeline"}));
    EXPECT_TRUE(plain->second) << "a named timeline runs whatever the number of kernels";
    auto bad = apply_collector_list({"+bogus"}, base);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown collector 'bogus'"), std::string::npos);
}

// The default profile is one ncu run with every tool's counters (measured: a second ncu run costs
// a whole 1.6 s start-up, all tools' counters 5 passes); a tight budget or --stages 2 splits it.
TEST(FirstNcuRun, DefaultCollectsEveryToolsCountersInOneRun) {
    kp::cli::ProfileOptions options;
    auto tools = kp::analysis::default_tool_registry().all();
    auto plan = kp::cli::plan_first_ncu_run(options, tools);
    EXPECT_TRUE(plan.all_tools);
    EXPECT_FALSE(plan.source_page) << "the source page is opt-in";
    EXPECT_TRUE(plan.tools_plan.dropped.empty());
    auto has = [&](const std::string& m) { return std::find(plan.metrics.begin(), plan.metrics.end(), m) != plan.metrics.end(); };
    for (const auto& m : kp::analysis::roofline_metric_names()) EXPECT_TRUE(has(m)) << m;
    for (const auto* tool : tools)
        for (const auto& m : tool->needs().metrics) EXPECT_TRUE(has(m)) << tool->name() << ": " << m;
    EXPECT_TRUE(has("profiler__replayer_passes"));
    EXPECT_TRUE(has("launch__block_size"));
    EXPECT_EQ(std::set<std::string>(plan.metrics.begin(), plan.metrics.end()).size(), plan.metrics.size()) << "duplicates";
}

TEST(FirstNcuRun, SourceCollectorAddsTheSourcePage) {
    kp::cli::ProfileOptions options;
    options.collectors.insert("source");
    auto plan = kp::cli::plan_first_ncu_run(options, kp::analysis::default_tool_registry().all());
    EXPECT_TRUE(plan.all_tools);
    EXPECT_TRUE(plan.source_page);
}

TEST(FirstNcuRun, TightBudgetOrTwoStagesCollectTheRooflineFirst) {
    kp::cli::ProfileOptions options;
    options.budget_passes = 7;
    auto tools = kp::analysis::default_tool_registry().all();
    auto tight = kp::cli::plan_first_ncu_run(options, tools);
    EXPECT_FALSE(tight.all_tools);
    EXPECT_EQ(tight.metrics, tight.roofline_metrics);
    options.stages = kp::cli::StagePlan::one_run;  // forced: one run, tools that do not fit are dropped
    auto forced = kp::cli::plan_first_ncu_run(options, tools);
    EXPECT_TRUE(forced.all_tools);
    EXPECT_FALSE(forced.tools_plan.dropped.empty());
    options = {};
    options.stages = kp::cli::StagePlan::two_runs;
    auto two = kp::cli::plan_first_ncu_run(options, tools);
    EXPECT_FALSE(two.all_tools);
    EXPECT_EQ(two.metrics, two.roofline_metrics);
}

TEST(ProfileCommand, UsageErrorsExitTwo) {
    EXPECT_EQ(run_profile({}).exit_code, 2);
    EXPECT_EQ(run_profile({kTask}).exit_code, 2);
    auto bad_collector = run_profile({kTask, kTask + "/reference.cu", "--collectors", "sass,bogus"});
    EXPECT_EQ(bad_collector.exit_code, 2);
    EXPECT_NE(bad_collector.err.find("unknown collector 'bogus'"), std::string::npos);
    auto missing = run_profile({kTask, kTask + "/no_such.cu"});
    EXPECT_EQ(missing.exit_code, 2);
    auto no_task = run_profile({kSource + "/tasks/no_such_task", kTask + "/reference.cu"});
    EXPECT_EQ(no_task.exit_code, 2);
}

TEST(ProfileCommand, UnknownToolIsAnError) {
    auto run = run_profile({kTask, kTask + "/reference.cu", "--tools", "no_such_tool", "-q"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("unknown tool 'no_such_tool'"), std::string::npos) << run.err;
}

TEST(ProfileCommand, BuildFailureExitsOne) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    auto dir = std::filesystem::temp_directory_path() / "kp-profile-cli-test";
    std::filesystem::create_directories(dir);
    auto bad = dir / "broken.cu";
    std::ofstream(bad) << "#include <kernelpro/abi.h>\nthis is not C++;\n";
    auto run = run_profile({kTask, bad.string(), "-q"});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.err.find("did not build"), std::string::npos) << run.err;
}

TEST(ProfileCommand, WithoutGpuShowsSassFindingsAndExitsThree) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU path is not taken (scripts/gpu-profile-check covers the GPU path)";
    auto run = run_profile({kTask, kTask + "/reference.cu", "--json", "-q"});
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_NE(run.err.find("need a GPU"), std::string::npos) << run.err;
    auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["schema"], "kernelpro.profile/1");
    EXPECT_NE(j["ceilings"].get<std::string>().find("datasheet"), std::string::npos);
    ASSERT_EQ(j["kernels"].size(), 1u);
    const auto& k = j["kernels"][0];
    EXPECT_FALSE(k["roofline_known"].get<bool>());
    EXPECT_NE(k["kernel"].dump().find("transpose_reference"), std::string::npos) << k.dump();
    // The reference moves 4-byte elements: the SASS-based narrow-access tool must fire.
    bool narrow = false;
    for (const auto& f : k["findings"]) narrow = narrow || f["tool"] == "narrow_global_access";
    EXPECT_TRUE(narrow) << k.dump(2);
}

TEST(ProfileCommand, WithoutGpuSpillHeavyKernelReportsSpills) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU path is not taken";
    auto run = run_profile({kTask, std::string(KP_CLI_TEST_DIR) + "/spill_heavy.cu", "--collectors", "sass,ptxas", "-q"});
    EXPECT_EQ(run.exit_code, 0) << run.err;  // no GPU collector asked for: not an environment error
    EXPECT_NE(run.out.find("spill_heavy"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("register_spills"), std::string::npos) << run.out;
}

TEST(ProfileCommand, FeedbackIsCompact) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU path is not taken";
    auto run = run_profile({kTask, kTask + "/reference.cu", "--feedback", "--collectors", "sass,ptxas", "-q"});
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_FALSE(run.out.empty());
    EXPECT_EQ(run.out.find("ceilings:"), std::string::npos);  // no report furniture, findings only
    EXPECT_LT(run.out.size(), 2000u);
}

// The validation corpus on counters recorded on the H200 (tests/fixtures/h200-corpus, written by
// `scripts/gpu-check corpus`): the kernels are built and disassembled here, the counters replayed
// with --ncu-csv, so the whole pipeline after ncu runs on CI. The named tool must rank first, and
// the healthy kernel must draw no finding above its max_gain (tests/profile_corpus/manifest.toml).
namespace {
struct CorpusKernel {
    std::string file, expect;
    double max_gain = 0.15;
};
std::vector<CorpusKernel> corpus_manifest() {
    std::vector<CorpusKernel> out;
    auto table = toml::parse_file(kSource + "/tests/profile_corpus/manifest.toml");
    if (auto* kernels = table["kernel"].as_array())
        for (auto& node : *kernels) {
            auto& k = *node.as_table();
            out.push_back({k["file"].value_or(std::string()), k["expect"].value_or(std::string()), k["max_gain"].value_or(0.15)});
        }
    return out;
}
class RecordedCorpus : public ::testing::TestWithParam<CorpusKernel> {};
}  // namespace

TEST_P(RecordedCorpus, RightToolRanksFirst) {
    const CorpusKernel& k = GetParam();
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernel cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the SASS tools cannot judge";
    const std::string fixtures = kSource + "/tests/fixtures/h200-corpus/";
    const std::string stem = k.file.substr(0, k.file.size() - 3);
    if (!std::filesystem::exists(fixtures + stem + ".raw.csv"))
        GTEST_SKIP() << "no counters recorded for " << k.file << " yet: run `scripts/gpu-check device corpus` on a GPU and copy "
                     << "recorded/" << stem << ".raw.csv from its reports.tgz into tests/fixtures/h200-corpus";
    auto run = run_profile({kSource + "/tests/profile_corpus/task", kSource + "/tests/profile_corpus/" + k.file, "--json", "-q",
                            "--ncu-csv", fixtures + stem + ".raw.csv", "--ceilings", fixtures + "ceilings.json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto report = nlohmann::json::parse(run.out);
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
    std::string listing;
    for (const auto& f : findings) listing += "  " + f["tool"].get<std::string>() + " " + std::to_string(f["estimated_gain"].get<double>()) + "\n";
    if (k.expect == "none") {
        for (const auto& f : findings) EXPECT_LE(f["estimated_gain"].get<double>(), k.max_gain) << listing;
    } else {
        ASSERT_FALSE(findings.empty()) << k.file << ": no finding";
        EXPECT_EQ(findings[0]["tool"], k.expect) << k.file << ":\n" << listing;
        // Evidence points at the candidate's own source, not the build cache's copy.
        const std::string text = findings[0].dump();
        if (text.find(".cu:") != std::string::npos) {
            EXPECT_NE(text.find(k.file), std::string::npos) << text;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(H200, RecordedCorpus, ::testing::ValuesIn(corpus_manifest()),
                         [](const ::testing::TestParamInfo<CorpusKernel>& info) {
                             return info.param.file.substr(0, info.param.file.size() - 3);
                         });

// With datasheet ceilings the scalar copy reads as latency-bound (DRAM 54% of the 4.8 TB/s
// datasheet peak) and warps wait on long scoreboard; the narrow 32-bit accesses are the cause, so
// long_scoreboard_latency leaves those stalls to narrow_global_access instead of ranking the symptom.
TEST(RecordedCorpusDatasheet, NarrowAccessesExplainTheLongScoreboardStalls) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernel cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the SASS tools cannot judge";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: its cached ceilings would replace the datasheet";
    auto run = run_profile({kSource + "/tests/profile_corpus/task", kSource + "/tests/profile_corpus/narrow_scalar_copy.cu", "--json",
                            "-q", "--ncu-csv", kSource + "/tests/fixtures/h200-corpus/narrow_scalar_copy.raw.csv"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto report = nlohmann::json::parse(run.out);
    const auto& kernel = report["kernels"][0];
    EXPECT_EQ(kernel["roofline"]["class"], "latency-bound");
    ASSERT_FALSE(kernel["findings"].empty());
    EXPECT_EQ(kernel["findings"][0]["tool"], "narrow_global_access");
    for (const auto& f : kernel["findings"]) EXPECT_NE(f["tool"], "long_scoreboard_latency") << f.dump();
}

// On a GPU (scripts/gpu-check profile): sum_reduce_f32's reference launches two kernels per call,
// so the default profile also traces the call with CUPTI, and the launch-overhead tool gets its
// data. The trace used to be lost: the worker leaves with _exit, which skips the tracer's atexit.
TEST(ProfileOnGpu, TwoKernelCallGetsATimeline) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_gpu()) GTEST_SKIP() << "no GPU: the timeline needs one (scripts/gpu-check profile runs this)";
    const std::string task = kSource + "/tasks/sum_reduce_f32";
    auto run = run_profile({task, task + "/reference.cu", "--json", "-q", "--no-cache"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto report = nlohmann::json::parse(run.out);
    EXPECT_GE(report["kernels"].size(), 2u);
    for (const auto& note : report["notes"]) EXPECT_EQ(note.get<std::string>().rfind("timeline", 0), std::string::npos) << note;
    EXPECT_TRUE(report["cost"]["collector_seconds"].contains("timeline")) << report["cost"].dump();
    // The counters came from the worker itself (CUPTI): no ncu run.
    EXPECT_EQ(report["cost"]["cupti_runs"], 1) << report["notes"].dump();
    EXPECT_EQ(report["cost"]["ncu_runs"], 0);
    bool ran = false;
    for (const auto& tool : report["kernels"][0]["tools_run"]) ran = ran || tool == "launch_overhead";
    EXPECT_TRUE(ran) << report["kernels"][0].dump();

    // Profiled again: everything from the cache (nothing is collected twice), the same diagnosis.
    auto again = run_profile({task, task + "/reference.cu", "--json", "-q"});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    auto cached = nlohmann::json::parse(again.out);
    EXPECT_EQ(cached["cost"]["cupti_runs"], 0);
    EXPECT_EQ(cached["cost"]["ncu_runs"], 0);
    const std::string hits = cached["cost"]["cached"].dump();
    EXPECT_NE(hits.find("counters"), std::string::npos) << hits;
    EXPECT_NE(hits.find("timeline"), std::string::npos) << hits;
    EXPECT_EQ(cached["kernels"][0]["findings"], report["kernels"][0]["findings"]);
}

// The counters the worker collects through CUPTI and ncu's give the same diagnosis: the same
// class and top finding on a flawed corpus kernel, with fewer passes and no ncu run.
TEST(ProfileOnGpu, CountersInTheWorkerDiagnoseLikeNcu) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_gpu()) GTEST_SKIP() << "no GPU: counters need one (scripts/gpu-check profile runs this)";
    if (!kp::profile::locate_nvidia_tool("ncu")) GTEST_SKIP() << "no ncu to compare with";
    const std::string task = kSource + "/tests/profile_corpus/task";
    const std::string kernel = kSource + "/tests/profile_corpus/bank_conflict_transpose.cu";
    auto cupti = run_profile({task, kernel, "--json", "-q", "--no-cache", "--counters", "cupti"});
    auto ncu = run_profile({task, kernel, "--json", "-q", "--no-cache", "--counters", "ncu"});
    ASSERT_EQ(cupti.exit_code, 0) << cupti.err;
    ASSERT_EQ(ncu.exit_code, 0) << ncu.err;
    auto a = nlohmann::json::parse(cupti.out), b = nlohmann::json::parse(ncu.out);
    EXPECT_EQ(a["cost"]["cupti_runs"], 1);
    EXPECT_EQ(a["cost"]["ncu_runs"], 0);
    EXPECT_EQ(b["cost"]["ncu_runs"], 1);
    EXPECT_LT(a["cost"]["replay_passes"].get<int>(), b["cost"]["replay_passes"].get<int>());
    ASSERT_FALSE(a["kernels"][0]["findings"].empty()) << a.dump();
    EXPECT_EQ(a["kernels"][0]["findings"][0]["tool"], "shared_bank_conflicts");
    EXPECT_EQ(a["kernels"][0]["findings"][0]["tool"], b["kernels"][0]["findings"][0]["tool"]);
    EXPECT_EQ(a["kernels"][0]["roofline"]["class"], b["kernels"][0]["roofline"]["class"]);

    // Two stages (the roofline, then the class's tools) both in the worker: the same finding.
    auto staged = run_profile({task, kernel, "--json", "-q", "--no-cache", "--counters", "cupti", "--stages", "2"});
    ASSERT_EQ(staged.exit_code, 0) << staged.err;
    auto c = nlohmann::json::parse(staged.out);
    EXPECT_EQ(c["cost"]["cupti_runs"], 2) << c["notes"].dump();
    EXPECT_EQ(c["cost"]["ncu_runs"], 0);
    ASSERT_FALSE(c["kernels"][0]["findings"].empty()) << c.dump();
    EXPECT_EQ(c["kernels"][0]["findings"][0]["tool"], "shared_bank_conflicts");
}

// When the worker cannot count (here: the counters library it is pointed at is not one), the
// default profile says why and counts with ncu instead; --counters cupti fails instead.
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
    const std::string task = kSource + "/tests/profile_corpus/task";
    const std::string kernel = kSource + "/tests/profile_corpus/small_grid.cu";
    auto fallback = run_profile({task, kernel, "--json", "-q", "--no-cache"});
    auto strict = run_profile({task, kernel, "--json", "-q", "--no-cache", "--counters", "cupti"});
    if (saved) ::setenv("KERNELPRO_HELPER_DIR", saved_value.c_str(), 1);
    else ::unsetenv("KERNELPRO_HELPER_DIR");
    std::filesystem::remove_all(helpers);

    ASSERT_EQ(fallback.exit_code, 0) << fallback.err;
    auto report = nlohmann::json::parse(fallback.out);
    EXPECT_EQ(report["cost"]["cupti_runs"], 0);
    EXPECT_EQ(report["cost"]["ncu_runs"], 1);
    EXPECT_NE(report["notes"].dump().find("counters in the worker failed, using ncu"), std::string::npos) << report["notes"].dump();
    ASSERT_FALSE(report["kernels"][0]["findings"].empty());
    EXPECT_EQ(report["kernels"][0]["findings"][0]["tool"], "small_grid_tail");
    EXPECT_EQ(strict.exit_code, 3) << strict.out << strict.err;
    EXPECT_NE((strict.out + strict.err).find("counters library"), std::string::npos) << strict.out << strict.err;
}

// CUPTI's host API plans counters for a chip without one: every counter the roofline and the tools
// ask for must be countable on the H100/H200 chip, in fewer passes than ncu took for them (9).
TEST(CuptiCounterPlan, EveryToolCounterCountsOnGH100) {
    auto library = kp::gpu::find_helper("libkp_counters.so");
    if (!library) GTEST_SKIP() << "libkp_counters.so was not built (no CUPTI in this CUDA toolkit)";
    auto tools = kp::cli::tool_list_json();
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

// Measured FLOP/s ceilings are put at one reference clock (the FP32 measurement's): cuBLAS bf16
// reached 807 TFLOP/s at ~1.6 GHz on the H200, which is ~999 at 1.98 GHz (the datasheet's 989
// dense), and the roofline scales that back to whatever clock a kernel ran at.
TEST(AnalysisCeilings, FlopCeilingsShareTheReferenceClock) {
    kp::gpu::DeviceCeilings measured;
    auto add = [&](const char* name, double value, std::optional<double> clock_mhz) {
        kp::gpu::Ceiling c;
        c.name = name;
        c.value = value;
        c.unit = "flop/s";
        c.sm_clock_mhz_mean = clock_mhz;
        measured.ceilings.push_back(c);
    };
    add("fp32_fma", 65.1e12, 1980.0);
    add("tensor_bf16", 807e12, 1600.0);
    add("fp64_fma", 33.3e12, std::nullopt);  // no clock reading: taken as is
    auto c = kp::cli::analysis_ceilings(measured);
    EXPECT_DOUBLE_EQ(c.sm_clock_hz, 1980e6);
    EXPECT_DOUBLE_EQ(c.fp32_flops, 65.1e12);
    EXPECT_NEAR(c.bf16_tensor_flops, 807e12 * 1980.0 / 1600.0, 1e6);
    EXPECT_DOUBLE_EQ(c.fp64_flops, 33.3e12);
}
