// The profile without counters: the collectors named, the SASS/ptxas-only diagnosis (no GPU, or
// only the offline collectors asked for), with the same gain floor as every diagnosis.
#include <gtest/gtest.h>

#include "profile_fixture.h"

using namespace kp::testing;

namespace {
const std::string kTask = kSource + "/tasks/transpose_f32";
}

TEST(OfflineProfile, UnknownCollectorOrToolIsAnError) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    kp::diagnose::ProfileOptions options;
    options.collectors = {"sass", "bogus"};
    auto collector = profile_kernel(kTask, kTask + "/reference.cu", options);
    EXPECT_FALSE(collector.ok);
    EXPECT_NE(collector.error.find("unknown collector 'bogus'"), std::string::npos) << collector.error;
    options = {};
    options.tools = {"no_such_tool"};
    auto tool = profile_kernel(kTask, kTask + "/reference.cu", options);
    EXPECT_FALSE(tool.ok);
    EXPECT_NE(tool.error.find("unknown tool 'no_such_tool'"), std::string::npos) << tool.error;
}

TEST(OfflineProfile, WithoutGpuShowsSassFindingsAndSaysWhatNeedsAGpu) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the SASS tools cannot judge";
    if (have_gpu()) GTEST_SKIP() << "a GPU is present: the no-GPU path is not taken (scripts/gpu-check profile covers the GPU path)";
    auto run = profile_kernel(kTask, kTask + "/reference.cu");
    ASSERT_TRUE(run.ok) << run.error;
    const auto& j = run.report;
    EXPECT_NE(j["environment_error"].get<std::string>().find("need a GPU"), std::string::npos) << j.dump();
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

TEST(OfflineProfile, SpillHeavyKernelReportsSpillsWithoutAnEnvironmentError) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the candidate cannot be built";
    if (!have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools): the spill tool reads LDL/STL in SASS";
    kp::diagnose::ProfileOptions options;
    options.collectors = {"sass", "ptxas"};
    auto run = profile_kernel(kTask, kSource + "/tests/diagnose/spill_heavy.cu", options);
    ASSERT_TRUE(run.ok) << run.error;
    EXPECT_EQ(run.report["environment_error"], "");  // no GPU collector asked for: not an environment error
    ASSERT_FALSE(run.report["kernels"].empty());
    const auto& k = run.report["kernels"][0];
    EXPECT_NE(k["kernel"].dump().find("spill_heavy"), std::string::npos) << k.dump();
    bool spills = false;
    for (const auto& f : k["findings"]) spills = spills || f["tool"] == "register_spills";
    EXPECT_TRUE(spills) << k.dump(2);
    EXPECT_FALSE(k["roofline_known"].get<bool>());
    EXPECT_EQ(k["roofline"]["reason"], "no ncu metrics: roofline not measured");
}
