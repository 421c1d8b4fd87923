// The lines behind a finding, on PC samples constructed here: per-PC samples grouped by source line
// through the SASS line info, then chosen by the stall reasons of the finding's tool and quoted
// from the candidate's text with the SASS instructions behind them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analysis/line_evidence.h"
#include "profile/pc_samples.h"

using namespace kp::analysis;
using kp::profile::PcSampling;
using kp::profile::SassFunction;
using kp::profile::SassInstruction;

namespace {

SassInstruction instruction(std::uint64_t offset, std::string opcode, std::vector<std::string> operands, int line) {
    SassInstruction i;
    i.offset = offset;
    i.opcode = std::move(opcode);
    i.operands = std::move(operands);
    if (line > 0) i.location = kp::profile::SourceLocation{"sum.cu", line};
    return i;
}

// A kernel of four lines: the load (line 9), the atomic (line 10), a barrier (line 12), and an
// instruction without line info. nvdisasm's offsets are section-relative (this section starts at 0x100).
SassFunction kernel() {
    SassFunction f;
    f.name = "_Z10atomic_sumPKfPfl";
    f.start = 0x100;
    f.instructions = {instruction(0x100, "LDG.E", {"R5", "desc[UR4][R2.64]"}, 9),
                      instruction(0x110, "IMAD", {"R3", "R0", "R1", "RZ"}, 9),
                      instruction(0x120, "RED.E.ADD.F32.FTZ.RN.STRONG.GPU", {"desc[UR4][R6.64]", "R5"}, 10),
                      instruction(0x130, "BAR.SYNC.DEFER_BLOCKING", {"0x0"}, 12),
                      instruction(0x140, "EXIT", {}, 0)};
    return f;
}

PcSampling samples() {
    auto j = nlohmann::json::parse(R"({
      "total_samples": 1000, "dropped_samples": 0, "sampling_period": 9,
      "pcs": [
        {"function": "_Z10atomic_sumPKfPfl", "pc_offset": 0,  "stalls": {"smsp__pcsamp_warps_issue_stalled_long_scoreboard": 150, "smsp__pcsamp_warps_issue_stalled_selected": 10}},
        {"function": "_Z10atomic_sumPKfPfl", "pc_offset": 16, "stalls": {"smsp__pcsamp_warps_issue_stalled_selected": 40}},
        {"function": "_Z10atomic_sumPKfPfl", "pc_offset": 32, "stalls": {"smsp__pcsamp_warps_issue_stalled_lg_throttle": 500, "smsp__pcsamp_warps_issue_stalled_drain": 100}},
        {"function": "_Z10atomic_sumPKfPfl", "pc_offset": 48, "stalls": {"smsp__pcsamp_warps_issue_stalled_barrier": 150}},
        {"function": "_Z10atomic_sumPKfPfl", "pc_offset": 64, "stalls": {"smsp__pcsamp_warps_issue_stalled_selected": 50}},
        {"function": "_Z11zero_outputPf",    "pc_offset": 0,  "stalls": {"smsp__pcsamp_warps_issue_stalled_selected": 7}}
      ]})");
    auto parsed = kp::profile::pc_sampling_from_json(j);
    EXPECT_TRUE(parsed) << parsed.error().message;
    return *parsed;
}

ProfileData profiled() {
    ProfileData data;
    data.kernel_name = "atomic_sum(const float *, float *, long)";
    data.sass_function = kernel();
    data.line_samples = kp::profile::samples_by_line(samples(), *data.sass_function);
    data.source_text = {"#include <kernelpro/abi.h>", "", "", "", "", "", "__global__ void atomic_sum(const float* x, float* y, int64_t n) {",
                        "    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;", "    float v = x[i];   ",
                        "\t  atomicAdd(y, v);", "", "    __syncthreads();", "}"};
    return data;
}

}  // namespace

TEST(PcSamples, StallNamesLoseCuptisPrefix) {
    EXPECT_EQ(kp::profile::stall_reason_name("smsp__pcsamp_warps_issue_stalled_long_scoreboard"), "long_scoreboard");
    EXPECT_EQ(kp::profile::stall_reason_name("smsp__pcsamp_sample_count"), "sample_count");
    EXPECT_EQ(kp::profile::stall_reason_name("barrier"), "barrier");
    EXPECT_FALSE(kp::profile::pc_sampling_from_json(nlohmann::json::object()));
    EXPECT_FALSE(kp::profile::pc_sampling_from_json(nlohmann::json::parse(R"({"pcs": [{"function": 3}]})")));
}

TEST(PcSamples, PerPcSamplesAddUpPerSourceLine) {
    auto lines = kp::profile::samples_by_line(samples(), kernel());
    EXPECT_EQ(lines.samples, 1000u);      // the other function's 7 are not this kernel's
    EXPECT_EQ(lines.without_line, 50u);   // EXIT has no line info
    ASSERT_EQ(lines.lines.size(), 3u);
    EXPECT_EQ(lines.lines[0].location.line, 10);  // most samples first
    EXPECT_EQ(lines.lines[0].samples, 600u);
    EXPECT_EQ(lines.lines[1].location.line, 9);   // two instructions, one line
    EXPECT_EQ(lines.lines[1].samples, 200u);
    EXPECT_EQ(lines.lines[1].stalls.at("long_scoreboard"), 150u);
    EXPECT_EQ(lines.lines[1].stalls.at("selected"), 50u);
    EXPECT_EQ(lines.lines[1].offsets, (std::vector<std::uint64_t>{0, 16}));  // the hottest instruction first
    EXPECT_EQ(lines.lines[2].location.line, 12);
}

TEST(LineEvidence, TheToolsStallReasonsPickTheLine) {
    const ProfileData data = profiled();
    auto atomic = line_evidence(make_finding("atomic_contention", 0.8, "atomics serialize"), data);
    ASSERT_FALSE(atomic.empty());
    EXPECT_EQ(atomic[0].kind, Evidence::Kind::source);
    EXPECT_EQ(atomic[0].name, "sum.cu:10");
    // Quoted, trimmed, with its share, its reasons and the instruction behind it.
    EXPECT_EQ(atomic[0].value.rfind("atomicAdd(y, v);  [60% of samples: lg_throttle 50%, drain 10%; RED.E.ADD.F32", 0), 0u) << atomic[0].value;

    auto barrier = line_evidence(make_finding("barrier_stalls", 0.2, "barriers"), data);
    ASSERT_EQ(barrier.size(), 1u);
    EXPECT_EQ(barrier[0].name, "sum.cu:12");
    EXPECT_NE(barrier[0].value.find("__syncthreads();"), std::string::npos) << barrier[0].value;

    auto latency = line_evidence(make_finding("long_scoreboard_latency", 0.3, "loads"), data);
    ASSERT_FALSE(latency.empty());
    EXPECT_EQ(latency[0].name, "sum.cu:9");
    EXPECT_EQ(latency[0].value.rfind("float v = x[i];  [20% of samples: long_scoreboard 15%; LDG.E R5, desc[UR4][R2.64]", 0), 0u)
        << latency[0].value;
}

TEST(LineEvidence, LaunchFindingsHaveNoLineAndNoSamplesGiveNone) {
    const ProfileData data = profiled();
    EXPECT_TRUE(line_evidence(make_finding("small_grid_tail", 0.5, "1 block"), data).empty());
    EXPECT_TRUE(line_evidence(make_finding("launch_overhead", 0.5, "idle"), data).empty());
    ProfileData unsampled = data;
    unsampled.line_samples.reset();
    EXPECT_TRUE(line_evidence(make_finding("atomic_contention", 0.8, "atomics"), unsampled).empty());
    // A tool the table does not know gets the hottest lines of all reasons.
    auto unknown = line_evidence(make_finding("some_new_tool", 0.2, "?"), data);
    ASSERT_FALSE(unknown.empty());
    EXPECT_EQ(unknown[0].name, "sum.cu:10");
}

TEST(LineEvidence, AttachedLinesComeFirstAndTheFeedbackQuotesThem) {
    const ProfileData data = profiled();
    Finding f = make_finding("atomic_contention", 0.8, "one L2 slice serializes the atomics");
    f.evidence.push_back(metric_evidence("hot slice / average", 12));
    attach_line_evidence(f, data);
    ASSERT_GE(f.evidence.size(), 2u);
    EXPECT_EQ(f.evidence.front().name, "sum.cu:10");
    EXPECT_EQ(f.evidence.back().name, "hot slice / average");
    EXPECT_EQ(quoted_line(data.source_text, 10), "atomicAdd(y, v);");
    EXPECT_EQ(quoted_line(data.source_text, 99), "");
    EXPECT_EQ(quoted_line({std::string(300, 'x')}, 1, 20), std::string(17, 'x') + "...");
}
