// FP64 arithmetic in a kernel that could run in FP32 (half rate on H200), or FP32 adds and
// multiplies that could be fused into FFMA.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kMinFp64Share = 0.15;     // NVIDIA's SOLFPRoofline: FP64 > 15% of FP work
constexpr double kMinUnfusedShare = 0.20;  // NVIDIA's FPInstructions: non-fused pairs > 10%

class Fp64OrUnfusedMathTool final : public DescribedTool {
public:
    Fp64OrUnfusedMathTool()
        : DescribedTool("fp64_or_unfused_math", {RooflineClass::compute_bound, RooflineClass::balanced, RooflineClass::latency_bound},
                        DataNeeds{{"sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
                                   "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
                                   "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
                                   ToolContext::pipe_metric("fp64"), ToolContext::pipe_metric("fma")},
                                  false, false, false, false, false},
                        "FP64 >= 15% of FP FLOPs (gain = share x (1 - FP64/FP32 peak) x FP64 pipe busy), or FADD+FMUL >= 20% of FP32 "
                        "instructions (gain = 0.5 x share x FMA pipe busy)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const RooflineResult& r = ctx.roofline();
        const gpu::DeviceCeilings& c = ctx.data().ceilings;
        const double fp = r.flops.fp32 + r.flops.fp64;
        if (fp <= 0) return std::nullopt;
        Finding f;
        const double fp64_share = r.flops.fp64 / fp;
        if (fp64_share >= kMinFp64Share) {
            double pipe = ctx.pipe_utilization("fp64").value_or(r.fp64_sol);
            const double fp32_peak = c.at_reference_clock(gpu::ceiling_name::fp32);
            double rate_gap = fp32_peak > 0 ? 1.0 - c.at_reference_clock(gpu::ceiling_name::fp64) / fp32_peak : 0.5;
            f.estimated_gain = fp64_share * rate_gap * clamp01(pipe);
            f.evidence.push_back(metric_evidence("FP64 share of FP FLOPs", fp64_share));
            f.evidence.push_back(metric_evidence("FP64 pipe utilization", pipe));
            auto is_fp64 = [](const profile::SassInstruction& i) {
                return i.base_opcode() == "DFMA" || i.base_opcode() == "DADD" || i.base_opcode() == "DMUL";
            };
            auto is_promotion = [](const profile::SassInstruction& i) { return i.opcode == "F2F.F64.F32"; };
            for (auto& e : ctx.sass_evidence(is_promotion, 1)) f.evidence.push_back(std::move(e));
            for (auto& e : ctx.sass_evidence(is_fp64, 1)) f.evidence.push_back(std::move(e));
            std::string where = ctx.first_source_line(is_fp64);
            int dfma = ctx.data().sass ? ctx.data().sass->fp64_instructions() : 0;
            f.summary = "FP64 math is " + format_percent(fp64_share) + " of floating-point work" +
                        (dfma ? " (" + std::to_string(dfma) + " DFMA/DADD/DMUL in SASS)" : std::string()) +
                        (where.empty() ? "" : " at " + where) + "; FP64 runs at half the FP32 rate";
            f.remedies = {rewrite_only(Rewrite::use_fp32)};
            f.guidance = "Compute in float: declare the temporaries float and write constants with an f suffix (1.0000001f) so nothing "
                         "promotes to double; keep double only where the accuracy test needs it.";
            return f;
        }
        double ffma = ctx.metrics().counter_sum("sm__sass_thread_inst_executed_op_ffma_pred_on")
                          .value_or(ctx.metrics().counter_sum("smsp__sass_thread_inst_executed_op_ffma_pred_on").value_or(0));
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
