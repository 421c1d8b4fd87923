// `kernelpro profile` through its CLI11 registration, as main.cpp runs it: --list-tools, usage
// errors, and the GPU-free path (SASS/ptxas-only findings, exit 3 naming what needs a GPU).
// Tests that compile a kernel skip without nvcc; with a GPU present the no-GPU expectations skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/tool_registry.h"
#include "cli/commands.h"
#include "cli/profile_pipeline.h"
#include "gpu/cuda_driver.h"
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
