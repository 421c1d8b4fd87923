#include <gtest/gtest.h>

#include "fixture_path.h"
#include "profile/kernel_names.h"
#include "profile/nvdisasm_json.h"
#include "profile/nvdisasm_line_info.h"
#include "profile/sass_summary.h"

using namespace kp::profile;
using kp::testing::read_fixture;

namespace {

SassProgram load_program() {
    auto program = parse_nvdisasm_json(read_fixture("h200/nvdisasm.json"));
    EXPECT_TRUE(program) << (program ? "" : program.error().message);
    return program ? *program : SassProgram{};
}

SassSummary summary_of(const SassProgram& program, const std::string& name) {
    const SassFunction* f = program.find(name);
    EXPECT_NE(f, nullptr) << name;
    return f ? summarize_sass(*f) : SassSummary{};
}

}  // namespace

TEST(NvdisasmJson, ReadsFunctionsInstructionsAndMetadata) {
    SassProgram program = load_program();
    EXPECT_EQ(program.sm_major, 9);
    EXPECT_EQ(program.sm_minor, 0);
    EXPECT_NE(program.tool_options.find("sm_90a"), std::string::npos);
    ASSERT_EQ(program.functions.size(), 10u);
    const SassFunction* vec4 = program.find("_Z9copy_vec4PK6float4PS_m");
    ASSERT_NE(vec4, nullptr);
    EXPECT_EQ(vec4->instructions.size() * 16, vec4->length);
    const SassInstruction& exit_if = vec4->instructions[9];
    EXPECT_EQ(exit_if.predicate, "@P0");
    EXPECT_EQ(exit_if.opcode, "EXIT");
    EXPECT_TRUE(exit_if.control_flow);
    EXPECT_EQ(exit_if.offset, 0x90u);
    const SassInstruction& load = vec4->instructions[23];
    EXPECT_EQ(load.opcode, "LDG.E.128.CONSTANT");
    EXPECT_EQ(load.base_opcode(), "LDG");
    EXPECT_TRUE(load.has_modifier("128"));
    ASSERT_EQ(load.operands.size(), 2u);
    EXPECT_EQ(load.operands[1], "desc[UR6][R4.64]");
    // The internal subroutine lives inside copy_strided's section, at its own start.
    const SassFunction* rem = program.find("$__internal_0_$__cuda_sm20_rem_u64");
    ASSERT_NE(rem, nullptr);
    EXPECT_EQ(rem->instructions.front().offset, 864u);
}

TEST(SassOperands, SplitsAtTopLevelCommasAndMissingCommaBeforeAddress) {
    EXPECT_EQ(split_sass_operands("R1,c[0x0][0x28]"), (std::vector<std::string>{"R1", "c[0x0][0x28]"}));
    EXPECT_EQ(split_sass_operands("desc[UR4][R2.64],R7"), (std::vector<std::string>{"desc[UR4][R2.64]", "R7"}));
    EXPECT_EQ(split_sass_operands("R11[R14+0x20]"), (std::vector<std::string>{"R11", "[R14+0x20]"}));  // nvdisasm -json quirk
    EXPECT_EQ(split_sass_operands("[R15],R6"), (std::vector<std::string>{"[R15]", "R6"}));
    EXPECT_EQ(split_sass_operands(" R4, -RZ, RZ, 1.875 "), (std::vector<std::string>{"R4", "-RZ", "RZ", "1.875"}));
    EXPECT_TRUE(split_sass_operands("").empty());
}

TEST(NvdisasmJson, RejectsMalformedInput) {
    EXPECT_FALSE(parse_nvdisasm_json("not json"));
    EXPECT_FALSE(parse_nvdisasm_json("{\"a\":1}"));
}

TEST(SassSummary, VectorWidthsSpillsTensorAndMath) {
    SassProgram program = load_program();
    SassSummary vec4 = summary_of(program, "_Z9copy_vec4PK6float4PS_m");
    EXPECT_EQ(vec4.global_loads.bits128, 1);
    EXPECT_EQ(vec4.global_loads.bits32, 0);
    EXPECT_EQ(vec4.global_stores.bits128, 1);
    EXPECT_EQ(vec4.read_only_global_loads, 1);

    SassSummary strided = summary_of(program, "_Z12copy_stridedPKfPfmi");
    EXPECT_EQ(strided.global_loads.bits32, 1);
    EXPECT_EQ(strided.calls, 1);  // size_t % emulated by a subroutine

    SassSummary spill = summary_of(program, "_Z11spill_heavyPKfPfi");
    EXPECT_EQ(spill.local_stores, 187);
    EXPECT_EQ(spill.local_loads, 188);
    EXPECT_EQ(spill.ffma, 64);
    EXPECT_EQ(spill.fmul, 62);

    SassSummary fp64 = summary_of(program, "_Z12fp64_in_fp32PKfPfm");
    EXPECT_EQ(fp64.dfma, 64);
    EXPECT_EQ(fp64.fp64_instructions(), 64);
    EXPECT_EQ(fp64.count(SassClass::fp64), 64);

    SassSummary wmma = summary_of(program, "_Z14wmma_bf16_gemmPK13__nv_bfloat16S1_Pfi");
    EXPECT_EQ(wmma.tensor_instructions, 10);
    EXPECT_EQ(wmma.tensor_opcodes.at("HMMA.16816.F32.BF16"), 10);
    EXPECT_EQ(wmma.generic_loads.bits32, 40);  // wmma loads compiled to generic LD.E

    SassSummary small = summary_of(program, "_Z14small_grid_fmaPfi");
    EXPECT_EQ(small.tensor_instructions, 0);         // HFMA2.MMA is not tensor work...
    EXPECT_EQ(small.constant_materializations, 2);   // ...it materializes constants
    EXPECT_EQ(small.half_math, 0);
    EXPECT_EQ(small.ffma, 29);

    SassSummary histogram = summary_of(program, "_Z16histogram_atomicPKhPjm");
    EXPECT_EQ(histogram.atomics, 1);
    EXPECT_EQ(histogram.global_loads.narrow, 1);  // LDG.E.U8

    SassSummary transpose = summary_of(program, "_Z20transpose_naive_smemPKfPfi");
    EXPECT_EQ(transpose.barriers, 1);
    EXPECT_EQ(transpose.shared_loads.bits32, 4);
    EXPECT_EQ(transpose.shared_stores.bits32, 4);

    SassSummary sgemm = summary_of(program, "_Z11sgemm_naivePKfS0_Pfi");
    EXPECT_GT(sgemm.ffma, 0);
    EXPECT_EQ(sgemm.tensor_instructions, 0);
    EXPECT_DOUBLE_EQ(sgemm.fp32_fused_share(), 1.0);
}

TEST(NvdisasmLineInfo, AttachesFileAndLineToInstructions) {
    auto table = parse_nvdisasm_line_info(read_fixture("h200/nvdisasm_lineinfo.txt"));
    ASSERT_TRUE(table) << table.error().message;
    EXPECT_EQ(table->size(), 10u);
    const auto& vec4 = table->at("_Z9copy_vec4PK6float4PS_m");
    ASSERT_FALSE(vec4.empty());
    EXPECT_EQ(vec4.front().offset, 0u);
    ASSERT_TRUE(vec4.front().location.has_value());
    EXPECT_EQ(vec4.front().location->file, "kernels.cu");

    SassProgram program = load_program();
    size_t attached = attach_line_info(program, *table);
    EXPECT_GT(attached, 2000u);
    const SassFunction* fp64 = program.find("_Z12fp64_in_fp32PKfPfm");
    ASSERT_NE(fp64, nullptr);
    const SassInstruction& first = fp64->instructions.front();
    ASSERT_TRUE(first.location.has_value());
    EXPECT_EQ(first.location->line, 45);
    // The float4 load sits on the copy_vec4 body line.
    const SassInstruction& load = program.find("_Z9copy_vec4PK6float4PS_m")->instructions[23];
    ASSERT_TRUE(load.location.has_value());
    EXPECT_EQ(load.location->file, "kernels.cu");
    EXPECT_EQ(load.location->line, 12);
    // The atomic in the histogram kernel comes from the CUDA header.
    bool header_line = false;
    for (const auto& ins : program.find("_Z16histogram_atomicPKhPjm")->instructions)
        if (ins.base_opcode() == "REDG") header_line = ins.location && ins.location->file.find("device_atomic_functions") != std::string::npos;
    EXPECT_TRUE(header_line);
}

TEST(KernelNames, MatchesMangledAndNcuNames) {
    EXPECT_EQ(kernel_base_name("_Z9copy_vec4PK6float4PS_m"), "copy_vec4");
    EXPECT_EQ(kernel_base_name("copy_vec4(const float4 *, float4 *, unsigned long)"), "copy_vec4");
    EXPECT_EQ(kernel_base_name("void ns::k<4, float>(float *)"), "ns::k");
    EXPECT_TRUE(same_kernel("_Z12copy_stridedPKfPfmi", "copy_strided(const float *, float *, unsigned long, int)"));
    EXPECT_FALSE(same_kernel("_Z9copy_vec4PK6float4PS_m", "copy_strided(const float *)"));
}
