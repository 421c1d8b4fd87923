// A math pipe at its peak: only removing or moving work (to a faster pipe) helps.
#include <array>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kSaturated = 0.80;       // NVIDIA's HighPipeUtilization "Very High"
// A pipe doing only overhead (ALU, XU, LSU, an FMA pipe running IMAD) executes none of the task's
// FLOPs, so the roofline cannot see it: it limits the kernel from the share at which the roofline
// calls a unit the bound (60%). A FLOP pipe keeps the stricter 80%: below it the roofline already
// weighs that work.
constexpr double kOverheadBound = kBoundThreshold;
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

// The XU pipe runs transcendentals (MUFU.EX2, SIN, RSQ, ...) and conversions; integer division by
// a run-time value compiles to conversions around a reciprocal (I2F, MUFU.RCP, F2I) plus IMADs.
// True when the kernel's XU-class instructions are mostly such conversions and reciprocals.
bool xu_pipe_runs_integer_division(const ToolContext& ctx) {
    const auto& function = ctx.data().sass_function;
    if (!function) return false;
    int conversions = 0, transcendentals = 0;
    for (const auto& i : function->instructions) {
        const auto op = i.base_opcode();
        if (op == "I2F" || op == "F2I" || op == "I2I" || op == "I2FP" || op == "F2IP") ++conversions;
        else if (op == "MUFU") (i.has_modifier("RCP") || i.has_modifier("RCP64H") ? conversions : transcendentals)++;
    }
    return conversions > 0 && conversions > 2 * transcendentals;
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
                        "busiest pipe (issue counters; tensor from the roofline's tensor SOL) >= 80% of its peak (60% for a "
                        "pipe of overhead work: ALU, XU, LSU, FMA running mostly IMAD); "
                        "gain = utilization x removable share: 0.2 for ALU/XU/LSU and an FMA pipe running mostly IMAD; for "
                        "FMA/FP64/tensor the FLOPs beyond the task's minimum (0.1 if unknown)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const std::array<std::pair<const char*, const char*>, 5> pipes = {{
            {"FMA", "fma"}, {"ALU", "alu"}, {"FP64", "fp64"}, {"XU (special functions)", "xu"}, {"LSU", "lsu"},
        }};
        // The busiest pipe past its bound (80% for a FLOP pipe, 60% for an overhead one).
        const char* busiest = nullptr;
        std::string busiest_metric;
        double utilization = 0;
        auto consider = [&](const char* name, std::string metric, double value, bool overhead) {
            if (value >= (overhead ? kOverheadBound : kSaturated) && value > utilization) {
                utilization = value;
                busiest = name;
                busiest_metric = std::move(metric);
            }
        };
        for (const auto& [name, pipe] : pipes) {
            const std::string p = pipe;
            const bool overhead = p == "alu" || p == "xu" || p == "lsu" || (p == "fma" && fma_pipe_runs_integer_math(ctx));
            if (auto v = ctx.pipe_utilization(pipe)) consider(name, ToolContext::pipe_metric(pipe), *v, overhead);
        }
        // Tensor cores: the roofline's tensor speed-of-light (operations against the measured peak).
        consider("tensor", "tensor speed-of-light fraction x 100", ctx.roofline().tensor_sol, false);
        if (!busiest) return std::nullopt;
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
        const bool integer_xu = pipe == "XU (special functions)" && xu_pipe_runs_integer_division(ctx);
        if (integer_xu)
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "XU pipe work (SASS)",
                                               "integer/float conversions and reciprocals outnumber transcendentals (integer division)"));
        f.estimated_gain = removable * clamp01(utilization);
        if (f.estimated_gain <= 0.01) return std::nullopt;  // the pipe does the task's own arithmetic
        f.evidence.push_back(metric_evidence(busiest_metric, utilization * 100));
        if (auto throttle = ctx.stall_share("math_pipe_throttle")) f.evidence.push_back(metric_evidence("math-pipe-throttle share of stalls", *throttle));
        f.summary = std::string("the ") + busiest + " pipe " + (utilization >= kSaturated ? "is saturated at " : "limits the kernel at ") +
                    format_percent(utilization) + " of its peak";
        f.remedies = {rewrite_only(pipe == "FP64" ? Rewrite::use_fp32 : pipe == "LSU" ? Rewrite::vectorize_accesses : Rewrite::cut_pipe_work)};
        if (integer_fma)
            f.guidance = "Cut the integer index arithmetic (hoist it out of loops, 32-bit instead of 64-bit indices, no division or "
                         "modulo by run-time values: a 2D grid or precomputed reciprocals).";
        else if (pipe == "FMA")
            f.guidance = "Cut FP32 instructions (hoist loop invariants, precompute reciprocals, reuse partial products) or move "
                         "matrix-shaped work to tensor cores.";
        else if (pipe == "FP64")
            f.guidance = "Move FP64 arithmetic to FP32 where precision allows (FP64 runs at half rate); keep FP64 only for accumulation.";
        else if (integer_xu)
            f.guidance = "The special-function pipe is busy with integer-to-float conversions and reciprocals: integer division "
                         "or modulo by run-time values (and 64-bit ones call a subroutine). Use 32-bit indices, a 2D/3D grid "
                         "instead of dividing a flat index, compile-time divisors, or precomputed magic-number reciprocals.";
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
