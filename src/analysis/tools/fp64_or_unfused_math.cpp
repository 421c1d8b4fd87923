// FP64 arithmetic in a kernel that could run in FP32 (half rate on H200), or FP32 adds and
// multiplies that could be fused into FFMA.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kMinFp64Share = 0.15;     // NVIDIA's SOLFPRoofline: FP64 > 15% of FP work
constexpr double kMinUnfusedShare = 0.20;  // NVIDIA's FPInstructions: non-fused pairs > 10%
// Conversions to and from 64-bit types (F2F.F64.F32, F2F.F32.F64, I2F.F64, F2I.F64) run at 16 per
// clock per SM on sm_80/sm_90, a quarter of the DFMA rate (64) and an eighth of FFMA's (128): the
// CUDA C++ Programming Guide's arithmetic-throughput table. A loop promoted to double by one
// literal spends more time converting than computing.
constexpr double kConversionsPerFp64Op = 0.25;
// FP64 work is worth a finding below the 15% FLOP share when its instructions and conversions
// take a tenth of the kernel's time: the time, not the FLOP count, is what moving to FP32 saves.
constexpr double kMinFp64TimeShare = 0.10;

// Conversions from or to fp64 in the SASS (the static count, to scale the executed FP64 work by).
int fp64_conversions(const profile::SassFunction& function) {
    int count = 0;
    for (const auto& i : function.instructions) {
        const auto op = i.base_opcode();
        if ((op == "F2F" || op == "I2F" || op == "F2I") && i.opcode.find("F64") != std::string::npos) ++count;
    }
    return count;
}

// Time the FP64 arithmetic and its conversions take at the measured clock, against the time the
// same operations would take as FP32 with no conversions.
struct Fp64Time {
    double fp64_ops = 0, conversions = 0;
    double seconds = 0, as_fp32_seconds = 0;
};

std::optional<Fp64Time> fp64_time(const ToolContext& ctx) {
    const gpu::DeviceCeilings& c = ctx.data().ceilings;
    const RooflineResult& r = ctx.roofline();
    Fp64Time t;
    t.fp64_ops = ctx.thread_instructions("dfma").value_or(0) + ctx.thread_instructions("dadd").value_or(0) +
                 ctx.thread_instructions("dmul").value_or(0);
    const double fp64_peak = c.at_reference_clock(gpu::ceiling_name::fp64);
    const double fp32_peak = c.at_reference_clock(gpu::ceiling_name::fp32);
    if (t.fp64_ops <= 0 || fp64_peak <= 0 || fp32_peak <= 0 || r.duration_seconds <= 0) return std::nullopt;
    // Executed conversions are not counted: scale the executed FP64 operations by the SASS ratio
    // (the promotion pattern puts them in the same loop as the FP64 arithmetic).
    const auto& sass = ctx.data().sass;
    if (sass && sass->fp64_instructions() > 0 && ctx.data().sass_function)
        t.conversions = t.fp64_ops * fp64_conversions(*ctx.data().sass_function) / sass->fp64_instructions();
    const double reference_clock = c.reference_clock_hz();
    const double scale = reference_clock > 0 && r.sm_clock_hz > 0 ? r.sm_clock_hz / reference_clock : 1.0;
    const double fp64_rate = fp64_peak * scale / 2;  // operations per second: a DFMA is 2 FLOP
    const double fp32_rate = fp32_peak * scale / 2;
    t.seconds = t.fp64_ops / fp64_rate + t.conversions / (fp64_rate * kConversionsPerFp64Op);
    t.as_fp32_seconds = t.fp64_ops / fp32_rate;
    return t;
}

class Fp64OrUnfusedMathTool final : public DescribedTool {
public:
    Fp64OrUnfusedMathTool()
        : DescribedTool("fp64_or_unfused_math", {RooflineClass::compute_bound, RooflineClass::balanced, RooflineClass::latency_bound},
                        DataNeeds{{"sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
                                   "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                   "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
                                   ToolContext::pipe_metric("fp64"), ToolContext::pipe_metric("fma")},
                                  false, false, false, false, false},
                        "FP64 >= 15% of FP FLOPs or FP64 instructions + conversions (16/clk/SM) >= 10% of the time: gain = their time "
                        "beyond the same operations in FP32, at most 1 - memory SOL (conversions scaled from the SASS; without measured rates: share x (1 - FP64/FP32 peak) x FP64 "
                        "pipe busy); or FADD+FMUL >= 20% of FP32 instructions: gain = 0.5 x share x FMA pipe busy") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const RooflineResult& r = ctx.roofline();
        const gpu::DeviceCeilings& c = ctx.data().ceilings;
        const double fp = r.flops.fp32 + r.flops.fp64;
        if (fp <= 0) return std::nullopt;
        Finding f;
        const double fp64_share = r.flops.fp64 / fp;
        auto time = fp64_time(ctx);
        const double time_share = time ? time->seconds / r.duration_seconds : 0;
        if (fp64_share >= kMinFp64Share || time_share >= kMinFp64TimeShare) {
            if (time) {
                // What FP32 saves: the FP64 and conversion time beyond the same operations in FP32,
                // and never more than the time the memory system leaves (the kernel cannot get
                // faster than its traffic).
                double saved = clamp01((time->seconds - time->as_fp32_seconds) / r.duration_seconds);
                f.estimated_gain = std::min(saved, clamp01(1.0 - r.memory_sol));
            } else {
                double pipe = ctx.pipe_utilization("fp64").value_or(r.fp64_sol);
                const double fp32_peak = c.at_reference_clock(gpu::ceiling_name::fp32);
                double rate_gap = fp32_peak > 0 ? 1.0 - c.at_reference_clock(gpu::ceiling_name::fp64) / fp32_peak : 0.5;
                f.estimated_gain = fp64_share * rate_gap * clamp01(pipe);
            }
            f.evidence.push_back(metric_evidence("FP64 share of FP FLOPs", fp64_share));
            if (time) {
                f.evidence.push_back(metric_evidence("FP64 and conversion share of kernel time", time_share));
                f.evidence.push_back(metric_evidence("conversions to/from FP64 (estimated executed)", time->conversions));
            }
            if (auto pipe = ctx.pipe_utilization("fp64")) f.evidence.push_back(metric_evidence("FP64 pipe utilization", *pipe));
            auto is_fp64 = [](const profile::SassInstruction& i) {
                return i.base_opcode() == "DFMA" || i.base_opcode() == "DADD" || i.base_opcode() == "DMUL";
            };
            auto is_promotion = [](const profile::SassInstruction& i) { return i.opcode == "F2F.F64.F32"; };
            for (auto& e : ctx.sass_evidence(is_promotion, 1)) f.evidence.push_back(std::move(e));
            for (auto& e : ctx.sass_evidence(is_fp64, 1)) f.evidence.push_back(std::move(e));
            std::string where = ctx.culprit_source_line(is_fp64);
            int dfma = ctx.data().sass ? ctx.data().sass->fp64_instructions() : 0;
            // conversion time above arithmetic time: conversions / (rate / 4) > operations / rate
            const bool conversions_dominate = time && time->conversions / kConversionsPerFp64Op > time->fp64_ops;
            f.summary = "FP64 math is " + format_percent(fp64_share) + " of floating-point work" +
                        (dfma ? " (" + std::to_string(dfma) + " DFMA/DADD/DMUL in SASS)" : std::string()) +
                        (where.empty() ? "" : " at " + where) +
                        (time ? ", taking " + format_percent(time_share) + " of the kernel's time" +
                                    (conversions_dominate ? " mostly in conversions to and from double" : "")
                              : std::string()) +
                        "; FP64 runs at half the FP32 rate, conversions at an eighth";
            f.remedies = {rewrite_only(Rewrite::use_fp32)};
            f.guidance = "Compute in float: declare the temporaries float and write constants with an f suffix (0.1f, 1.0000001f) so "
                         "nothing promotes to double; keep double only where the accuracy test needs it.";
            return f;
        }
        double ffma = ctx.thread_instructions("ffma").value_or(0);
        double unfused_flops = r.flops.fp32 - 2 * ffma;  // fadd + fmul
        double instructions = unfused_flops + ffma;
        if (instructions <= 0) return std::nullopt;
        double unfused_share = unfused_flops / instructions;
        if (unfused_share < kMinUnfusedShare) return std::nullopt;
        double pipe = ctx.pipe_utilization("fma").value_or(r.fp32_sol);
        f.estimated_gain = 0.5 * unfused_share * clamp01(pipe);
        f.evidence.push_back(metric_evidence("FADD+FMUL share of FP32 instructions", unfused_share));
        f.evidence.push_back(metric_evidence("FMA pipe utilization", pipe));
        f.summary = format_percent(unfused_share) + " of FP32 instructions are separate FADD/FMUL that could be fused";
        f.remedies = {rewrite_only(Rewrite::fuse_multiply_add)};
        f.guidance = "Write a*b+c forms the compiler can fuse (fmaf, no -fmad=false, avoid splitting the product and sum across "
                     "volatile or separately rounded temporaries).";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_fp64_or_unfused_math_tool() { return std::make_unique<Fp64OrUnfusedMathTool>(); }

}  // namespace kp::analysis
