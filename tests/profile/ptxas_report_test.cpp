#include <gtest/gtest.h>

#include "fixture_path.h"
#include "profile/ptxas_report.h"

using namespace kp::profile;
using kp::testing::read_fixture;

TEST(PtxasReport, ReadsEveryEntryFunction) {
    auto report = parse_ptxas_report(read_fixture("h200/ptxas_v.txt"));
    ASSERT_TRUE(report) << report.error().message;
    EXPECT_EQ(report->global_bytes, 0);
    ASSERT_EQ(report->functions.size(), 9u);
    const PtxasFunction* spill = report->find("_Z11spill_heavyPKfPfi");
    ASSERT_NE(spill, nullptr);
    EXPECT_TRUE(spill->entry);
    EXPECT_EQ(spill->arch, "sm_90a");
    EXPECT_EQ(spill->registers, 32);
    EXPECT_EQ(spill->stack_frame_bytes, 408);
    EXPECT_EQ(spill->spill_store_bytes, 748);
    EXPECT_EQ(spill->spill_load_bytes, 752);
    EXPECT_EQ(spill->cumulative_stack_bytes, 408);
    EXPECT_NEAR(*spill->compile_ms, 102.279, 1e-9);
    const PtxasFunction* transpose = report->find("_Z20transpose_naive_smemPKfPfi");
    ASSERT_NE(transpose, nullptr);
    EXPECT_EQ(transpose->barriers, 1);
    EXPECT_EQ(transpose->shared_bytes, 4096);
    EXPECT_EQ(transpose->registers, 22);
    const PtxasFunction* vec4 = report->find("_Z9copy_vec4PK6float4PS_m");
    ASSERT_NE(vec4, nullptr);
    EXPECT_EQ(vec4->spill_store_bytes, 0);
    EXPECT_EQ(vec4->registers, 14);
}

TEST(PtxasReport, OlderFormatAndWarnings) {
    auto report = parse_ptxas_report(
        "ptxas info    : Compiling entry function '_Z1kPf' for 'sm_80'\n"
        "ptxas info    : Function properties for _Z1kPf\n"
        "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 255 registers, 384 bytes cmem[0]\n"
        "ptxas warning : Registers are spilled to local memory in function '_Z1kPf', 4 bytes spill stores, 4 bytes spill loads\n");
    ASSERT_TRUE(report);
    ASSERT_EQ(report->functions.size(), 1u);
    EXPECT_EQ(report->functions[0].registers, 255);
    EXPECT_EQ(report->functions[0].constant_bytes, 384);
    EXPECT_EQ(report->warnings.size(), 1u);
    EXPECT_FALSE(parse_ptxas_report("nothing here"));
}

TEST(CuobjdumpResourceUsage, ReadsEveryFunction) {
    auto usage = parse_cuobjdump_resource_usage(read_fixture("h200/cuobjdump_res_usage.txt"));
    ASSERT_TRUE(usage) << usage.error().message;
    ASSERT_EQ(usage->size(), 9u);
    for (const auto& u : *usage) EXPECT_EQ(u.arch, "sm_90a");
    auto find = [&](const std::string& name) -> const ResourceUsage* {
        for (const auto& u : *usage)
            if (u.function == name) return &u;
        return nullptr;
    };
    ASSERT_NE(find("_Z11spill_heavyPKfPfi"), nullptr);
    EXPECT_EQ(find("_Z11spill_heavyPKfPfi")->stack, 408);
    EXPECT_EQ(find("_Z11spill_heavyPKfPfi")->registers, 32);
    EXPECT_EQ(find("_Z20transpose_naive_smemPKfPfi")->shared, 5120);  // includes the 1 KiB reserved per block
    EXPECT_EQ(find("_Z12fp64_in_fp32PKfPfm")->constant0, 552);
    EXPECT_FALSE(parse_cuobjdump_resource_usage("junk"));
}
