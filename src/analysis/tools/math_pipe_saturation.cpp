// A math pipe at its peak: only removing or moving work (to a faster pipe) helps.
#include <array>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kSaturated = 0.80;       // NVIDIA's HighPipeUtilization "Very High"
constexpr double kRemovableShare = 0.20;  // we assume a fifth of a saturated pipe's work is removable
                                          // (strength reduction, hoisting) without seeing the code

class MathPipeSaturationTool final : public DescribedTool {
public:
    MathPipeSaturationTool()
        : DescribedTool("math_pipe_saturation", {RooflineClass::compute_bound, RooflineClass::balanced},
                        DataNeeds{{ToolContext::pipe_metric("fma"), ToolContext::pipe_metric("alu"), ToolContext::pipe_metric("fp64"),
                                   ToolContext::pipe_metric("xu"), ToolContext::pipe_metric("lsu")},
                                  false, false, false, false, false},
                        "busiest pipe (issue counters; tensor from the roofline's tensor SOL) >= 80% of its peak; "
                        "gain = 0.2 x its utilization") {}

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
        f.estimated_gain = kRemovableShare * clamp01(utilization);
        f.evidence.push_back(metric_evidence(busiest_metric, utilization * 100));
        if (auto throttle = ctx.stall_share("math_pipe_throttle")) f.evidence.push_back(metric_evidence("math-pipe-throttle share of stalls", *throttle));
        f.summary = std::string("the ") + busiest + " pipe is saturated at " + format_percent(utilization) + " of its peak";
        std::string pipe = busiest;
        if (pipe == "FMA")
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
