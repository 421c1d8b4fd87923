// `kernelpro doctor` and `kernelpro device` as a user runs them (the built binary, started as a process).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/process.h"
#include "gpu/cuda_driver.h"

namespace {

struct CommandRun {
    int exit_code = -1;
    std::string out;
};

// The binary next to this build's, else `kernelpro` on PATH (a GPU bundle puts it there).
CommandRun run_command(std::vector<std::string> args) {
    args.insert(args.begin(), std::filesystem::exists(KP_KERNELPRO_BINARY) ? KP_KERNELPRO_BINARY : "kernelpro");
    auto run = kp::run_process(args);
    EXPECT_TRUE(run) << (run ? "" : run.error().message);
    if (!run) return {};
    return {run->exit_code, run->stdout_text};
}

}  // namespace

TEST(DoctorCommand, ReportsAsJsonAndExitsZero) {
    auto run = run_command({"doctor", "--json"});
    EXPECT_EQ(run.exit_code, 0);
    auto j = nlohmann::json::parse(run.out);
    ASSERT_EQ(j["tools"].size(), 8u);  // nvcc ncu nvdisasm cuobjdump compute-sanitizer cupti nvml cutlass
    EXPECT_EQ(j["tools"][7].value("name", ""), "cutlass") << j["tools"].dump();
    EXPECT_TRUE(j["ready"].contains("evaluate"));
    // Counters have two ways in (CUPTI in the worker, ncu); the helper that allows the first is listed.
    bool counters_helper = false;
    for (const auto& h : j["helpers"]) counters_helper = counters_helper || h["name"] == "libkp_counters.so";
    EXPECT_TRUE(counters_helper) << j["helpers"].dump();
    EXPECT_TRUE(j["ready"].contains("counted_by"));
    EXPECT_TRUE(j["ready"].contains("source_page"));
    if (!kp::gpu::CudaDriver::load()) {
        EXPECT_FALSE(j["ready"]["counter_profiles"].get<bool>());
        EXPECT_FALSE(j["gpu"]["available"].get<bool>());
        EXPECT_EQ(j["gpu"]["error"].get<std::string>().rfind("no GPU:", 0), 0u);
        EXPECT_FALSE(j["ready"]["evaluate"].get<bool>());
    }
}

TEST(DoctorCommand, TextTableSaysWhatNeedsAGpu) {
    auto run = run_command({"doctor"});
    EXPECT_EQ(run.exit_code, 0);
    EXPECT_NE(run.out.find("nvcc"), std::string::npos);
    EXPECT_NE(run.out.find("cupti"), std::string::npos);
    if (!kp::gpu::CudaDriver::load()) {
        EXPECT_NE(run.out.find("needs a GPU"), std::string::npos) << run.out;
    }
}

TEST(DeviceCommand, FallsBackToLabelledDatasheetValuesWithoutAGpu) {
    if (kp::gpu::CudaDriver::load()) GTEST_SKIP() << "a GPU is present: measuring is covered by the gpu-labelled tests";
    auto run = run_command({"device", "--json"});
    EXPECT_EQ(run.exit_code, 0);
    auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["source"], "datasheet");
    EXPECT_NE(j["label"].get<std::string>().find("datasheet"), std::string::npos);

    auto table = run_command({"device"});
    EXPECT_EQ(table.exit_code, 0);
    EXPECT_NE(table.out.find("datasheet"), std::string::npos);
    EXPECT_NE(table.out.find("TB/s"), std::string::npos);
}
