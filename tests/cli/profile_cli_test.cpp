// `kernelpro profile` as a user runs it (the built binary, started as a process): --list-tools,
// usage errors and the exit codes of each outcome. What the profile finds is tested on the library
// (tests/diagnose).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../source_tree.h"
#include "analysis/tool_registry.h"
#include "common/process.h"
#include "gpu/cuda_driver.h"
#include "profile/tool_locator.h"

namespace {

const std::string kSource = kp::testing::source_tree().string();
const std::string kTask = kSource + "/tasks/transpose_f32";

// The binary next to this build's, else `kernelpro` on PATH (a GPU bundle puts it there).
std::string kernelpro() {
    if (std::filesystem::exists(KP_KERNELPRO_BINARY)) return KP_KERNELPRO_BINARY;
    return "kernelpro";
}

kp::ProcessResult run_profile(std::vector<std::string> args) {
    args.insert(args.begin(), {kernelpro(), "profile"});
    auto run = kp::run_process(args);
    EXPECT_TRUE(run) << (run ? "" : run.error().message);
    return run ? *run : kp::ProcessResult{};
}

bool have_nvcc() { return kp::profile::locate_nvidia_tool("nvcc").has_value(); }
bool have_gpu() { return kp::gpu::CudaDriver::load().ok(); }

}  // namespace

TEST(ProfileCommand, ListToolsNeedsNoTaskAndNamesEveryTool) {
    auto run = run_profile({"--list-tools"});
    EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
    auto tools = kp::analysis::default_tool_registry().all();
    ASSERT_GE(tools.size(), 15u);
    const std::string& out = run.stdout_text;
    EXPECT_EQ(static_cast<size_t>(std::count(out.begin(), out.end(), '\n')), tools.size());
    for (const auto* tool : tools) EXPECT_NE(out.find(std::string(tool->name())), std::string::npos) << tool->name();
    EXPECT_NE(out.find("classes="), std::string::npos);
    EXPECT_NE(out.find("needs="), std::string::npos);
    EXPECT_NE(out.find("timeline"), std::string::npos);
}

TEST(ProfileCommand, ListToolsJsonCarriesEveryMetric) {
    auto run = run_profile({"--list-tools", "--json"});
    EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
    auto doc = nlohmann::json::parse(run.stdout_text);
    EXPECT_EQ(doc["schema"], "kernelpro.tools/1");
    EXPECT_EQ(doc["tools"].size(), kp::analysis::default_tool_registry().all().size());
    EXPECT_FALSE(doc["stage1_metrics"].empty());
    for (const auto& tool : doc["tools"])
        if (tool["name"] == "shared_bank_conflicts") {
            EXPECT_TRUE(tool["source_page"].get<bool>());
            EXPECT_GE(tool["metrics"].size(), 4u);
        }
}

TEST(ProfileCommand, ListCollectorsNamesEveryRegisteredOne) {
    auto run = run_profile({"--list-collectors"});
    EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
    for (const char* name : {"ncu", "source", "pcsampling", "sass", "ptxas", "timeline", "occupancy"})
        EXPECT_NE(run.stdout_text.find(name), std::string::npos) << name << "\n" << run.stdout_text;
    EXPECT_NE(run.stdout_text.find("opt-in"), std::string::npos) << run.stdout_text;  // the source page
    auto json = run_profile({"--list-collectors", "--json"});
    EXPECT_EQ(json.exit_code, 0) << json.stderr_text;
    auto doc = nlohmann::json::parse(json.stdout_text);
    EXPECT_EQ(doc["schema"], "kernelpro.collectors/1");
    EXPECT_EQ(doc["collectors"].size(), 7u);
}

TEST(ProfileCommand, UsageErrorsExitTwo) {
    EXPECT_EQ(run_profile({}).exit_code, 2);
    EXPECT_EQ(run_profile({kTask}).exit_code, 2);
    auto bad_collector = run_profile({kTask, kTask + "/reference.cu", "--collectors", "sass,bogus"});
    EXPECT_EQ(bad_collector.exit_code, 2);
    EXPECT_NE(bad_collector.stderr_text.find("unknown collector 'bogus'"), std::string::npos) << bad_collector.stderr_text;
    EXPECT_EQ(run_profile({kTask, kTask + "/no_such.cu"}).exit_code, 2);
    EXPECT_EQ(run_profile({kSource + "/tasks/no_such_task", kTask + "/reference.cu"}).exit_code, 2);
    EXPECT_EQ(run_profile({kTask, kTask + "/reference.cu", "--json", "--feedback"}).exit_code, 2);
}

TEST(ProfileCommand, UnknownToolIsAnError) {
    auto run = run_profile({kTask, kTask + "/reference.cu", "--tools", "no_such_tool", "-q"});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.stderr_text.find("unknown tool 'no_such_tool'"), std::string::npos) << run.stderr_text;
}

TEST(ProfileCommand, BuildFailureExitsOne) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    auto dir = std::filesystem::temp_directory_path() / "kp-profile-cli-test";
    std::filesystem::create_directories(dir);
    auto bad = dir / "broken.cu";
    std::ofstream(bad) << "#include <kernelpro/abi.h>\nthis is not C++;\n";
    auto run = run_profile({kTask, bad.string(), "-q"});
    EXPECT_EQ(run.exit_code, 1);
    EXPECT_NE(run.stderr_text.find("did not build"), std::string::npos) << run.stderr_text;
}

TEST(ProfileCommand, WithoutGpuPrintsTheOfflineReportAndExitsThree) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU path is not taken";
    auto run = run_profile({kTask, kTask + "/reference.cu", "--json", "-q"});
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_NE(run.stderr_text.find("need a GPU"), std::string::npos) << run.stderr_text;
    auto j = nlohmann::json::parse(run.stdout_text);
    EXPECT_EQ(j["schema"], "kernelpro.profile/1");
    EXPECT_EQ(j["candidate"], kTask + "/reference.cu");
    ASSERT_EQ(j["kernels"].size(), 1u);
    EXPECT_FALSE(j["kernels"][0]["roofline_known"].get<bool>());
}

TEST(ProfileCommand, OfflineCollectorsOnlyExitZeroAndFeedbackIsCompact) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
const std::string kSource = kp::testing::source_tree().string();
    auto run = run_profile({kTask, kTask + "/reference.cu", "--feedback", "--collectors", "sass,ptxas", "-q"});
    EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
    EXPECT_FALSE(run.stdout_text.empty());
    EXPECT_EQ(run.stdout_text.find("ceilings:"), std::string::npos);  // no report furniture, findings only
    EXPECT_LT(run.stdout_text.size(), 2000u);
    auto text = run_profile({kTask, kTask + "/reference.cu", "--collectors", "sass,ptxas", "-q"});
    EXPECT_EQ(text.exit_code, 0) << text.stderr_text;
    EXPECT_NE(text.stdout_text.find("kernelpro profile: transpose_f32"), std::string::npos) << text.stdout_text;
    EXPECT_NE(text.stdout_text.find("profiling cost:"), std::string::npos) << text.stdout_text;
}
