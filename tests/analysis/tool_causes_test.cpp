// The causes issue 12 found on kernels the tools had not seen, on constructed counters (H200
// datasheet ceilings, self-consistent numbers for the kernel each case describes): each case
// names the tool that must rank first and, where one used to win, the tool that must not.
#include <gtest/gtest.h>

#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/diagnosis.h"
#include "fixture_profiles.h"
#include "gpu/occupancy.h"

using namespace kp::analysis;

namespace {

constexpr double kMinimalBytes = 2.0 * 8192 * 8192 * 4;  // the corpus task: 256 MiB in, 256 MiB out

// SASS from (opcode, count) pairs, in that order, one instruction per 16 bytes.
kp::profile::SassFunction sass_of(std::initializer_list<std::pair<const char*, int>> mix) {
    kp::profile::SassFunction f;
    f.name = "_Z6kernelv";
    for (const auto& [opcode, count] : mix)
        for (int i = 0; i < count; ++i) {
            kp::profile::SassInstruction instruction;
            instruction.offset = 16 * f.instructions.size();
            instruction.opcode = opcode;
            f.instructions.push_back(instruction);
        }
    return f;
}

ProfileData profile_of(std::map<std::string, double> metrics, const kp::profile::SassFunction& sass) {
    ProfileData data;
    data.kernel_name = "kernel";
    data.ceilings = kp::testing::h200_ceilings();
    data.metrics = kp::profile::KernelMetrics{};
    metrics.emplace("sm__cycles_elapsed.avg.per_second", 1.98e9);
    for (const auto& [name, value] : metrics) data.metrics->metrics[name] = kp::profile::MetricValue{value, ""};
    data.sass_function = sass;
    data.sass = kp::profile::summarize_sass(sass);
    data.task.min_bytes = kMinimalBytes;
    return data;
}

Diagnosis diagnosed(const ProfileData& data) {
    auto d = diagnose(data);
    EXPECT_TRUE(d) << (d ? "" : d.error().message);
    return d ? *d : Diagnosis{};
}

std::string listing(const Diagnosis& d) {
    std::string out = std::string(to_string(d.roofline.kind)) + " (" + d.roofline.reason + ")\n";
    for (const auto& f : d.findings) out += "  " + f.tool + " " + std::to_string(f.estimated_gain) + ": " + f.summary + "\n";
    return out;
}

const Finding* find_tool(const Diagnosis& d, const std::string& tool) {
    for (const auto& f : d.findings)
        if (f.tool == tool) return &f;
    return nullptr;
}

// 2 M threads each gather 64 floats from an L2-resident window (coalesced) and multiply-add each
// into 8 entries of a run-time-indexed 32-float local array (tests/profile_corpus/spill_gather_accumulate.cu):
// one LDG per 8 FFMA and 134 FLOP per DRAM byte, but every FFMA loads and stores local memory.
ProfileData spilling_gather_accumulate() {
    const double warps = 2.0 * (1 << 20) / 32, global_ld = warps * 64, local = warps * 512;
    return profile_of({{"gpu__time_duration.sum", 2.0e6},
                       {"dram__bytes_read.sum", 8.0e6}, {"dram__bytes_write.sum", 8.4e6},
                       {"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", 32 * local},
                       {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 32 * warps * 32},
                       {"smsp__inst_executed.sum", 35 * global_ld},  // per gather: 1 LDG, 8 LDL, 8 FFMA, 8 STL, 10 integer
                       {"smsp__sass_inst_executed_op_global_ld.sum", global_ld}, {"smsp__sass_inst_executed_op_global_st.sum", warps},
                       {"smsp__sass_inst_executed_op_local_ld.sum", local}, {"smsp__sass_inst_executed_op_local_st.sum", local},
                       {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 4 * global_ld},
                       {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 4 * warps},
                       {"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 4 * local},
                       {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 4 * local},
                       {"lts__t_sectors_srcunit_tex_op_read.sum", 2.0 * local}, {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 1.9 * local},
                       {"lts__t_bytes.sum", 32 * 4.0 * local}, {"l1tex__t_bytes.sum", 32 * (8.0 * local + 4 * global_ld)},
                       {"l1tex__data_pipe_lsu_wavefronts.sum", 2.0 * local + global_ld}},
                      sass_of({{"LDG.E.CONSTANT", 4}, {"LDL", 32}, {"FFMA", 32}, {"STL", 32}, {"LDL.128", 8}, {"FADD", 32}, {"STG.E", 1}}));
}

}  // namespace

// matmul_without_tensor_cores claimed 90% on such a kernel, above register_spills: FFMA count and
// FLOP per DRAM byte alone are no evidence of a matrix product.
TEST(ToolCauses, MultiplyAddsIntoASpilledArrayAreSpillsNotAMatrixProduct) {
    Diagnosis d = diagnosed(spilling_gather_accumulate());
    ASSERT_FALSE(d.findings.empty()) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "register_spills") << listing(d);
    EXPECT_EQ(find_tool(d, "matmul_without_tensor_cores"), nullptr) << listing(d);
}

TEST(ToolCauses, TheSameMultiplyAddsFedByGlobalLoadsWithReuseAreOne) {
    // Control: the operands from global memory (re-read from L1, as a naive GEMM does), no local
    // traffic: the evidence of a matrix product holds and the tool fires.
    ProfileData data = spilling_gather_accumulate();
    auto& m = data.metrics->metrics;
    const double local = std::get<double>(m["smsp__sass_inst_executed_op_local_ld.sum"].value);
    m["smsp__sass_inst_executed_op_global_ld.sum"].value = local;
    m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"].value = 4 * local;
    for (const char* name : {"smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum",
                             "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"})
        m[name].value = 0.0;
    data.sass_function = sass_of({{"LDG.E.CONSTANT", 8}, {"FFMA", 32}, {"FADD", 32}, {"STG.E", 1}});
    data.sass = kp::profile::summarize_sass(*data.sass_function);
    Diagnosis d = diagnosed(data);
    ASSERT_NE(find_tool(d, "matmul_without_tensor_cores"), nullptr) << listing(d);
}

// fp32 code promoted by a double literal (acc * v + 0.1): per step FMUL, F2F.F64.F32, DADD,
// F2F.F32.F64 over 64 M elements x 32 steps. The FP64 pipe is 10% busy (DADD is cheap); the
// conversions, at 16 per clock per SM, take most of the 1.2 ms. The old estimate (FLOP share x
// rate gap x FP64 pipe busy = 2.5%) fell under the 5% floor.
TEST(ToolCauses, ConversionsOfADoubleLiteralWeighByTheirTime) {
    const double ops = 64.0 * (1 << 20) * 32;
    ProfileData data = profile_of({{"gpu__time_duration.sum", 1.2e6},
                                   {"dram__bytes_read.sum", 2.7e8}, {"dram__bytes_write.sum", 2.7e8},
                                   {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", ops},
                                   {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum", ops},
                                   {ToolContext::pipe_metric("fp64"), 10.0}, {ToolContext::pipe_metric("fma"), 3.0},
                                   {"smsp__sass_inst_executed_op_global_ld.sum", 2.1e6}, {"smsp__sass_inst_executed_op_global_st.sum", 2.1e6},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 8.4e6},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 8.4e6}},
                                  sass_of({{"LDG.E.CONSTANT", 1}, {"FMUL", 32}, {"F2F.F64.F32", 32}, {"DADD", 32}, {"F2F.F32.F64", 32},
                                           {"STG.E", 1}}));
    Diagnosis d = diagnosed(data);
    ASSERT_GE(d.findings.size(), 1u) << listing(d);
    const Finding* fp64 = find_tool(d, "fp64_or_unfused_math");
    ASSERT_NE(fp64, nullptr) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "fp64_or_unfused_math") << listing(d);
    EXPECT_GT(fp64->estimated_gain, 0.5) << listing(d);
    EXPECT_NE(fp64->summary.find("conversions"), std::string::npos) << fp64->summary;
}

TEST(ToolCauses, Fp64HiddenBehindMemoryClaimsOnlyWhatMemoryLeaves) {
    // The same FP64 work in a kernel whose DRAM traffic takes 90% of the time: at most 10%.
    const double ops = 64.0 * (1 << 20) * 32;
    const double seconds = 1.2e-3;
    const double bytes = 0.9 * 4.8e12 * seconds;
    ProfileData data = profile_of({{"gpu__time_duration.sum", seconds * 1e9},
                                   {"dram__bytes_read.sum", bytes / 2}, {"dram__bytes_write.sum", bytes / 2},
                                   {"sm__sass_thread_inst_executed_op_fmul_pred_on.sum", ops},
                                   {"sm__sass_thread_inst_executed_op_dadd_pred_on.sum", ops}},
                                  sass_of({{"FMUL", 32}, {"F2F.F64.F32", 32}, {"DADD", 32}, {"F2F.F32.F64", 32}}));
    DiagnosisOptions all;
    all.gate_by_class = false;
    auto d = diagnose(data, default_tool_registry(), all);
    ASSERT_TRUE(d);
    const Finding* fp64 = find_tool(*d, "fp64_or_unfused_math");
    ASSERT_NE(fp64, nullptr) << listing(*d);
    EXPECT_LE(fp64->estimated_gain, 1.0 - d->roofline.memory_sol + 1e-9) << listing(*d);
}

// A 7x7 box filter reading all 49 neighbours from global memory (64 M outputs): 32-bit coalesced
// loads hitting L1, 24x the task's minimal bytes through L1, DRAM at the footprint. It drew
// narrow_global_access (30%) as its top finding.
TEST(ToolCauses, AStencilReReadingCachedNeighboursMissesDataReuse) {
    const double warps = 64.0 * (1 << 20) / 32, loads = 49 * warps;
    const double ld_sectors = loads * 4.86;  // 6 of 7 column offsets straddle a sector more
    ProfileData data = profile_of({{"gpu__time_duration.sum", 1.5e6},
                                   {"dram__bytes_read.sum", 2.8e8}, {"dram__bytes_write.sum", 2.7e8},
                                   {"sm__sass_thread_inst_executed_op_fadd_pred_on.sum", 49 * 32 * warps},
                                   {"smsp__inst_executed.sum", 120 * warps},
                                   {"smsp__sass_inst_executed_op_global_ld.sum", loads}, {"smsp__sass_inst_executed_op_global_st.sum", warps},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", ld_sectors},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 4 * warps},
                                   {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 128 / 4.86},
                                   {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio", 32},
                                   {"lts__t_sectors_srcunit_tex_op_read.sum", 2.5e7}, {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 1.6e7},
                                   {"lts__t_bytes.sum", 32 * 4.2e7}, {"l1tex__t_bytes.sum", 32 * (ld_sectors + 4 * warps)},
                                   {"l1tex__data_pipe_lsu_wavefronts.sum", 2 * loads}, {ToolContext::pipe_metric("lsu"), 45.0}},
                                  sass_of({{"LDG.E.CONSTANT", 49}, {"FADD", 49}, {"FMUL", 1}, {"STG.E", 1}}));
    Diagnosis d = diagnosed(data);
    ASSERT_FALSE(d.findings.empty()) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "missing_data_reuse") << listing(d);
    EXPECT_GT(d.findings.front().estimated_gain, 0.3) << listing(d);
    EXPECT_EQ(find_tool(d, "narrow_global_access"), nullptr) << listing(d);
    // The same loads with each byte read once (a stream) are narrow accesses again, not reuse.
    auto& m = data.metrics->metrics;
    m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"].value = 4 * warps;
    m["smsp__sass_inst_executed_op_global_ld.sum"].value = warps;
    m["smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"].value = 32.0;
    m["lts__t_sectors_srcunit_tex_op_read.sum"].value = 8.4e6;
    Diagnosis stream = diagnosed(data);
    EXPECT_EQ(find_tool(stream, "missing_data_reuse"), nullptr) << listing(stream);
}

// Each output row sums four input rows a quarter of the matrix apart: L2 requests 2x the footprint,
// 10% hits, DRAM reads 1.8x. dram_traffic_excess outranked l2_locality on the same bytes; the
// refetches are l2_locality's to name.
TEST(ToolCauses, RefetchesAcrossBlocksAreL2LocalitysNotDramExcess) {
    const double requests = 4 * 2.68e8 / 32;
    ProfileData data = profile_of({{"gpu__time_duration.sum", 0.4e6},
                                   {"dram__bytes_read.sum", 9.7e8}, {"dram__bytes_write.sum", 2.7e8},
                                   {"lts__t_sectors_srcunit_tex_op_read.sum", requests},
                                   {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 0.1 * requests},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", requests},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 8.4e6},
                                   {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 32},
                                   {"lts__t_bytes.sum", 32 * (requests + 8.4e6)}, {"l1tex__t_bytes.sum", 32 * (requests + 8.4e6)}},
                                  sass_of({{"LDG.E.128.CONSTANT", 4}, {"FADD", 16}, {"STG.E.128", 1}}));
    Diagnosis d = diagnosed(data);
    ASSERT_FALSE(d.findings.empty()) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "l2_locality") << listing(d);
}

// Two passes over 256 KiB chunks whose resident set is 4x the L2: DRAM reads 1.8x the input,
// 1.4x the minimal bytes in all, L2 requests at the footprint (no reuse across blocks).
TEST(ToolCauses, ASecondPassFromDramIsDramTrafficExcess) {
    const double requests = 2 * 2.68e8 / 32;
    ProfileData data = profile_of({{"gpu__time_duration.sum", 0.21e6},
                                   {"dram__bytes_read.sum", 4.8e8}, {"dram__bytes_write.sum", 2.7e8},
                                   {"lts__t_sectors_srcunit_tex_op_read.sum", requests},
                                   {"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", 0.1 * requests},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", requests},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 8.4e6},
                                   {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio", 32},
                                   {"lts__t_bytes.sum", 32 * (requests + 8.4e6)}, {"l1tex__t_bytes.sum", 32 * (requests + 8.4e6)}},
                                  sass_of({{"LDG.E.128.CONSTANT", 2}, {"FADD", 8}, {"FMUL", 4}, {"STG.E.128", 1}}));
    Diagnosis d = diagnosed(data);
    ASSERT_FALSE(d.findings.empty()) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "dram_traffic_excess") << listing(d);
}

// One 256-thread block per SM (a 160 KiB shared buffer): 12.5% occupancy, memory at 10%, warps
// waiting on loads. long_scoreboard_latency named the symptom above the cause.
TEST(ToolCauses, StallsThatTooFewWarpsExplainAreOccupancys) {
    ProfileData data = profile_of({{"gpu__time_duration.sum", 0.4e6},
                                   {"dram__bytes_read.sum", 1.0e8}, {"dram__bytes_write.sum", 0.9e8},
                                   {"smsp__average_warp_latency_per_inst_issued.ratio", 40},
                                   {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 36},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 3.1e6},
                                   {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 3.1e6}},
                                  sass_of({{"LDG.E.128.CONSTANT", 4}, {"STS.128", 4}, {"LDS.128", 4}, {"STG.E.128", 4}}));
    auto occupancy = kp::gpu::compute_occupancy(kp::gpu::OccupancyLimits::sm90(), {256, 32, 0, 160 * 1024});
    ASSERT_TRUE(occupancy);
    data.occupancy = *occupancy;
    Diagnosis d = diagnosed(data);
    ASSERT_FALSE(d.findings.empty()) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "occupancy_limit") << listing(d);
}

// 64-bit division and modulo for a channel index: the ALU pipe at 92%, no FLOPs, memory at 30%:
// the roofline says latency-bound, where math_pipe_saturation did not run.
TEST(ToolCauses, AnAluSaturatedByIndexMathIsFoundWhenTheRooflineSaysLatency) {
    ProfileData data = profile_of({{"gpu__time_duration.sum", 0.4e6},
                                   {"dram__bytes_read.sum", 2.7e8}, {"dram__bytes_write.sum", 2.7e8},
                                   {ToolContext::pipe_metric("alu"), 92}, {ToolContext::pipe_metric("fma"), 60}},
                                  sass_of({{"LDG.E.128.CONSTANT", 1}, {"IMAD.HI.U32", 34}, {"IADD3", 40}, {"SEL", 22}, {"STG.E.128", 1}}));
    Diagnosis d = diagnosed(data);
    EXPECT_EQ(d.roofline.kind, RooflineClass::latency_bound) << listing(d);
    ASSERT_FALSE(d.findings.empty()) << listing(d);
    EXPECT_EQ(d.findings.front().tool, "math_pipe_saturation") << listing(d);
}
