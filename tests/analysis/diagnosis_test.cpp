// The micro-profiling tools on the recorded H200 kernels: the tool that names each kernel's
// deliberate flaw must rank first, and the healthy float4 copy must get no finding worth acting on.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "analysis/diagnosis.h"
#include "fixture_profiles.h"

using namespace kp::analysis;
using kp::testing::fixture_profile;

namespace {

Diagnosis run(const ProfileData& data, DiagnosisOptions options = {}) {
    auto d = diagnose(data, default_tool_registry(), options);
    EXPECT_TRUE(d) << data.kernel_name << ": " << (d ? "" : d.error().message);
    return d ? *d : Diagnosis{};
}

std::string describe(const Diagnosis& d) {
    std::string out;
    for (const auto& f : d.findings) out += "  " + f.tool + " " + std::to_string(f.estimated_gain) + ": " + f.summary + "\n";
    return out.empty() ? "  (no findings)\n" : out;
}

const Finding* find_tool(const Diagnosis& d, const std::string& tool) {
    for (const auto& f : d.findings)
        if (f.tool == tool) return &f;
    return nullptr;
}

bool has_evidence(const Finding& f, Evidence::Kind kind, const std::string& needle) {
    for (const auto& e : f.evidence)
        if (e.kind == kind && (e.name + " " + e.value).find(needle) != std::string::npos) return true;
    return false;
}

struct FlawCase {
    const char* kernel;
    const char* tool;
    double min_gain;
};

class RightToolRanksFirst : public ::testing::TestWithParam<FlawCase> {};

}  // namespace

TEST_P(RightToolRanksFirst, OnTheRecordedProfile) {
    const FlawCase& c = GetParam();
    Diagnosis d = run(fixture_profile(c.kernel));
    ASSERT_FALSE(d.findings.empty()) << c.kernel << " (" << to_string(d.roofline.kind) << ")\n" << describe(d);
    EXPECT_EQ(d.findings.front().tool, c.tool) << c.kernel << " (" << to_string(d.roofline.kind) << ")\n" << describe(d);
    EXPECT_GE(d.findings.front().estimated_gain, c.min_gain) << describe(d);
    EXPECT_FALSE(d.findings.front().guidance.empty());
    EXPECT_FALSE(d.findings.front().evidence.empty());
    // Ranked by gain.
    for (size_t i = 1; i < d.findings.size(); ++i) EXPECT_GE(d.findings[i - 1].estimated_gain, d.findings[i].estimated_gain);
}

TEST_P(RightToolRanksFirst, EvenWithoutClassGating) {
    const FlawCase& c = GetParam();
    DiagnosisOptions options;
    options.gate_by_class = false;
    Diagnosis d = run(fixture_profile(c.kernel), options);
    ASSERT_FALSE(d.findings.empty());
    EXPECT_EQ(d.findings.front().tool, c.tool) << c.kernel << "\n" << describe(d);
}

INSTANTIATE_TEST_SUITE_P(FlawedKernels, RightToolRanksFirst,
                         ::testing::Values(FlawCase{"copy_strided", "uncoalesced_global_access", 0.5},
                                           FlawCase{"transpose_naive_smem", "shared_bank_conflicts", 0.5},
                                           FlawCase{"spill_heavy", "register_spills", 0.3},
                                           FlawCase{"sgemm_naive", "matmul_without_tensor_cores", 0.5},
                                           FlawCase{"small_grid_fma", "small_grid_tail", 0.9},
                                           FlawCase{"histogram_atomic", "atomic_contention", 0.5},
                                           FlawCase{"fp64_in_fp32", "fp64_or_unfused_math", 0.3}),
                         [](const auto& info) { return std::string(info.param.kernel); });

TEST(HealthyKernel, CopyVec4GetsNoFindingWorthActingOn) {
    DiagnosisOptions all;
    all.min_gain = 0.0;
    all.gate_by_class = false;  // every tool, not only the memory-bound ones
    Diagnosis d = run(fixture_profile("copy_vec4"), all);
    for (const auto& f : d.findings) EXPECT_LT(f.estimated_gain, 0.05) << describe(d);
    EXPECT_TRUE(run(fixture_profile("copy_vec4")).findings.empty()) << describe(run(fixture_profile("copy_vec4")));
}

TEST(Evidence, FindingsCiteInstructionsAndSourceLines) {
    Diagnosis strided = run(fixture_profile("copy_strided"));
    const Finding* uncoalesced = find_tool(strided, "uncoalesced_global_access");
    ASSERT_NE(uncoalesced, nullptr);
    EXPECT_TRUE(has_evidence(*uncoalesced, Evidence::Kind::source, "LDG.E"));  // from the source page
    EXPECT_TRUE(has_evidence(*uncoalesced, Evidence::Kind::sass, "kernels.cu:14"));  // from nvdisasm -g
    EXPECT_NE(uncoalesced->summary.find("kernels.cu:14"), std::string::npos);

    Diagnosis transpose = run(fixture_profile("transpose_naive_smem"));
    const Finding* conflicts = find_tool(transpose, "shared_bank_conflicts");
    ASSERT_NE(conflicts, nullptr);
    EXPECT_TRUE(has_evidence(*conflicts, Evidence::Kind::source, "32-way"));
    EXPECT_NE(conflicts->summary.find("32"), std::string::npos);

    Diagnosis spill = run(fixture_profile("spill_heavy"));
    const Finding* spills = find_tool(spill, "register_spills");
    ASSERT_NE(spills, nullptr);
    EXPECT_TRUE(has_evidence(*spills, Evidence::Kind::metric, "748 B spill stores"));
    EXPECT_TRUE(has_evidence(*spills, Evidence::Kind::sass, "STL"));

    Diagnosis fp64 = run(fixture_profile("fp64_in_fp32"));
    const Finding* doubles = find_tool(fp64, "fp64_or_unfused_math");
    ASSERT_NE(doubles, nullptr);
    EXPECT_TRUE(has_evidence(*doubles, Evidence::Kind::sass, "F2F.F64.F32"));
    EXPECT_TRUE(has_evidence(*doubles, Evidence::Kind::sass, "DFMA"));
}

TEST(Sensitivity, RemovingTheFlawSilencesTheTool) {
    // Zero the bank-conflict counters: the tool must stop firing (it reads data, not the kernel name).
    ProfileData transpose = fixture_profile("transpose_naive_smem");
    transpose.metrics->metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"].value = 0.0;
    transpose.metrics->metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"].value = 0.0;
    EXPECT_EQ(find_tool(run(transpose), "shared_bank_conflicts"), nullptr);

    // Perfectly used sectors: no uncoalesced finding.
    ProfileData strided = fixture_profile("copy_strided");
    strided.metrics->metrics["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"].value = 32.0;
    EXPECT_EQ(find_tool(run(strided), "uncoalesced_global_access"), nullptr);

    // A grid of 1320 blocks: no small-grid finding.
    ProfileData small = fixture_profile("small_grid_fma");
    small.metrics->metrics["launch__grid_size"].value = 1320.0;
    small.metrics->metrics["launch__waves_per_multiprocessor"].value = 2.0;
    EXPECT_EQ(find_tool(run(small), "small_grid_tail"), nullptr);

    // The same GEMM SASS with tensor instructions: no tensor-core finding.
    ProfileData sgemm = fixture_profile("sgemm_naive");
    sgemm.sass->tensor_instructions = 4;
    EXPECT_EQ(find_tool(run(sgemm), "matmul_without_tensor_cores"), nullptr);
}

TEST(Gating, NoisyAndIrrelevantToolsStayQuiet) {
    // The wmma GEMM already uses tensor cores.
    Diagnosis wmma = run(fixture_profile("wmma_bf16_gemm"));
    EXPECT_EQ(find_tool(wmma, "matmul_without_tensor_cores"), nullptr);
    // A serial FMA chain is not a GEMM.
    DiagnosisOptions all;
    all.gate_by_class = false;
    EXPECT_EQ(find_tool(run(fixture_profile("small_grid_fma"), all), "matmul_without_tensor_cores"), nullptr);
    // Memory-bound kernels wait on loads by nature: no long-scoreboard finding even ungated.
    EXPECT_EQ(find_tool(run(fixture_profile("copy_vec4"), all), "long_scoreboard_latency"), nullptr);
    // Stage 2 ran only the class's tools.
    Diagnosis fp64 = run(fixture_profile("fp64_in_fp32"));
    EXPECT_EQ(std::count(fp64.tools_run.begin(), fp64.tools_run.end(), "uncoalesced_global_access"), 0);
}

TEST(MissingData, ToolsThatNeedSassAreReportedNotGuessed) {
    ProfileData data = fixture_profile("sgemm_naive");
    data.sass.reset();
    data.sass_function.reset();
    Diagnosis d = run(data);
    EXPECT_NE(std::find(d.tools_without_data.begin(), d.tools_without_data.end(), "matmul_without_tensor_cores"), d.tools_without_data.end());
    EXPECT_EQ(find_tool(d, "matmul_without_tensor_cores"), nullptr);
}

TEST(Timeline, ManySmallKernelsWithGaps) {
    ProfileData data;
    data.kernel_name = "elementwise_chain";
    kp::gpu::TimelineSummary t;  // one call: 40 kernels of 4 us over 400 us
    t.calls = 1;
    t.kernels_per_call = 40;
    t.kernel_duration.total_ns = 40 * 4000;
    t.gpu_span_ns = 400000;
    t.kernel_duration.median_ns = 4000;
    t.launch_overhead.mean_ns = 5000;
    data.timeline = t;
    Diagnosis d = run(data);
    ASSERT_FALSE(d.findings.empty());
    EXPECT_EQ(d.findings.front().tool, "launch_overhead");
    EXPECT_NEAR(d.findings.front().estimated_gain, 0.6, 1e-9);

    t.kernels_per_call = 1;
    t.kernel_duration.total_ns = 390000;
    t.kernel_duration.median_ns = 390000;
    data.timeline = t;
    EXPECT_TRUE(run(data).findings.empty());
}

// "NVIDIA's own rules fire on nearly everything, ours must not" (issue 3): on the nine recorded
// H200 kernels, ncu's guided-analysis rules (--page details) that claim >= 15% against our
// findings that claim >= 15%. On the healthy float4 copy ncu claims several (HighPipeUtilization
// 94%, MemoryL2Compression 29%, ...), we claim none; over the nine, ncu 36 and we 11 (a kernel
// with two real flaws, sgemm_naive, may draw more of ours than of ncu's).
TEST(AgainstNcuRules, FewerClaimsThanNcuAndNoneOnTheHealthyCopy) {
    auto details = kp::profile::parse_ncu_csv(kp::testing::read_fixture("h200/ncu_details.csv"));
    ASSERT_TRUE(details) << details.error().message;
    int ncu_total = 0, ours_total = 0;
    for (const auto& k : *details) {
        const std::string name = kp::profile::kernel_base_name(k.name);
        int ncu_claims = 0;
        for (const auto& rule : k.rules)
            if ((rule.type == "OPT" || rule.type == "WRN") && rule.estimated_speedup_pct.value_or(0) >= 15) ++ncu_claims;
        Diagnosis d = run(fixture_profile(name));
        int our_claims = 0;
        for (const auto& f : d.findings) our_claims += f.estimated_gain >= 0.15;
        if (name == "copy_vec4") {
            EXPECT_GE(ncu_claims, 2);
            EXPECT_EQ(our_claims, 0) << describe(d);
        }
        ncu_total += ncu_claims;
        ours_total += our_claims;
    }
    EXPECT_LT(ours_total, ncu_total);
    std::printf("claims >= 15%% of time over the 9 kernels: ncu rules %d, kernelpro tools %d\n", ncu_total, ours_total);
}
