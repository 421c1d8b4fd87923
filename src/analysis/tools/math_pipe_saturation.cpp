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
                        DataNeeds{{"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
                                   "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active",
                                   "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active",
                                   "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
                                   "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active",
                                   "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"},
                                  false, false, false, false, false},
                        "busiest pipe >= 80% of its peak; gain = 0.2 x its utilization") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& m = ctx.metrics();
        const std::array<std::pair<const char*, const char*>, 6> pipes = {{
            {"FMA", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"},
            {"ALU", "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"},
            {"FP64", "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"},
            {"tensor", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"},
            {"XU (special functions)", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"},
            {"LSU", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"},
        }};
        const char* busiest = nullptr;
        const char* busiest_metric = nullptr;
        double utilization = 0;
        for (const auto& [pipe, metric] : pipes) {
            if (auto v = m.get(metric); v && *v / 100.0 > utilization) {
                utilization = *v / 100.0;
                busiest = pipe;
                busiest_metric = metric;
            }
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
