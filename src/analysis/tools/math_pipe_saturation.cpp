// A math pipe at its peak: only removing or moving work (to a faster pipe) helps.
#include <array>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kSaturated = 0.80;       // NVIDIA's HighPipeUtilization "Very High"
// A saturated overhead pipe (ALU index math, XU, LSU) does work the result does not need: we
// assume a fifth of it removable (strength reduction, hoisting, wider accesses) without the code.
constexpr double kRemovableShare = 0.20;
// A saturated FLOP pipe (FMA, FP64, tensor) may be doing exactly the task's arithmetic: a healthy
// kernel at its compute roof. Removable is then what it executes beyond the task's minimal FLOPs;
// without those, a guess of a tenth keeps such kernels under the 15% a healthy kernel may draw.
constexpr double kUnknownRedundancy = 0.10;

// The FMA pipe also runs integer multiply-adds (IMAD): when the SASS has more of them than FP32
// math instructions, a saturated FMA pipe is doing index arithmetic, an overhead like the ALU's.
bool fma_pipe_runs_integer_math(const ToolContext& ctx) {
    const auto& sass = ctx.data().sass;
    const auto& function = ctx.data().sass_function;
    if (!sass || !function) return false;
    int imad = 0;
    for (const auto& i : function->instructions)
        if (i.base_opcode() == "IMAD") ++imad;
    return imad > sass->ffma + sass->fadd + sass->fmul;
}

class MathPipeSaturationTool final : public DescribedTool {
public:
    MathPipeSaturationTool()
        // Latency-bound too: the roofline sees only FLOP pipes and memory, so a kernel whose ALU pipe
        // is saturated by integer index math (no FLOPs, memory half idle) reads as latency-bound.
        : DescribedTool("math_pipe_saturation", {RooflineClass::compute_bound, RooflineClass::balanced, RooflineClass::latency_bound},
                        DataNeeds{{ToolContext::pipe_metric("fma"), ToolContext::pipe_metric("alu"), ToolContext::pipe_metric("fp64"),
                                   ToolContext::pipe_metric("xu"), ToolContext::pipe_metric("lsu")},
                                  false, false, false, false, false},
                        "busiest pipe (issue counters; tensor from the roofline's tensor SOL) >= 80% of its peak; "
                        "gain = utilization x removable share: 0.2 for ALU/XU/LSU and an FMA pipe running mostly IMAD; for "
                        "FMA/FP64/tensor the FLOPs beyond the task's minimum (0.1 if unknown)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const std::array<std::pair<const char*, const char*>, 5> pipes = {{
            {"FMA", "fma"}, {"ALU", "alu"}, {"FP64", "fp64"}, {"XU (special functions)", "xu"}, {"LSU", "lsu"},
        }};
        const char* busiest = nullptr;
        std::string busiest_metric;
        double utilization = 0;
        for (const auto& [name, pipe] : pipes) {
            if (auto v = ctx.pipe_utilization(pipe); v && *v > utilization) {
                utilization = *v;
                busiest = name;
                busiest_metric = ToolContext::pipe_metric(pipe);
            }
        }
        // Tensor cores: the roofline's tensor speed-of-light (operations against the measured peak).
        if (ctx.roofline().tensor_sol > utilization) {
            utilization = ctx.roofline().tensor_sol;
            busiest = "tensor";
            busiest_metric = "tensor speed-of-light fraction x 100";
        }
        if (!busiest || utilization < kSaturated) return std::nullopt;
        Finding f;
        const std::string pipe = busiest;
        double removable = kRemovableShare;
        const bool integer_fma = pipe == "FMA" && fma_pipe_runs_integer_math(ctx);
        if (integer_fma) {
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "FMA pipe work (SASS)", "integer multiply-adds (IMAD) outnumber FP32 math"));
        } else if (pipe == "FMA" || pipe == "FP64" || pipe == "tensor") {
            const FlopCounts& done = ctx.roofline().flops;
            const double executed = pipe == "FMA" ? done.fp32 : pipe == "FP64" ? done.fp64 : done.tensor;
            const auto& minimal = ctx.data().task.min_flops;
            if (minimal && *minimal > 0 && executed > 0) {
                removable = clamp01(1.0 - *minimal / executed);
                f.evidence.push_back(metric_evidence("task's minimal FLOPs / executed on this pipe", *minimal / executed));
            } else {
                removable = kUnknownRedundancy;
            }
        }
        f.estimated_gain = removable * clamp01(utilization);
        if (f.estimated_gain <= 0.01) return std::nullopt;  // the pipe does the task's own arithmetic
        f.evidence.push_back(metric_evidence(busiest_metric, utilization * 100));
        if (auto throttle = ctx.stall_share("math_pipe_throttle")) f.evidence.push_back(metric_evidence("math-pipe-throttle share of stalls", *throttle));
        f.summary = std::string("the ") + busiest + " pipe is saturated at " + format_percent(utilization) + " of its peak";
        f.remedies = {rewrite_only(pipe == "FP64" ? Rewrite::use_fp32 : pipe == "LSU" ? Rewrite::vectorize_accesses : Rewrite::cut_pipe_work)};
        if (integer_fma)
            f.guidance = "Cut the integer index arithmetic (hoist it out of loops, 32-bit instead of 64-bit indices, no division or "
                         "modulo by run-time values: a 2D grid or precomputed reciprocals).";
        else if (pipe == "FMA")
            f.guidance = "Cut FP32 instructions (hoist loop invariants, precompute reciprocals, reuse partial products) or move "
                         "matrix-shaped work to tensor cores.";
        else if (pipe == "FP64")
            f.guidance = "Move FP64 arithmetic to FP32 where precision allows (FP64 runs at half rate); keep FP64 only for accumulation.";
        else if (pipe == "XU (special functions)")
            f.guidance = "Use fewer transcendental calls (fast intrinsics like __expf, table lookups, or algebraic rewrites).";
        else if (pipe == "LSU")
            f.guidance = "Issue fewer, wider memory instructions (128-bit accesses, ldmatrix) so the load/store unit is not the limit.";
        else
            f.guidance = "Remove redundant instructions on this pipe (index arithmetic hoisted out of loops, cheaper integer math).";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_math_pipe_saturation_tool() { return std::make_unique<MathPipeSaturationTool>(); }

}  // namespace kp::analysis
