// Warps waiting at __syncthreads for the slowest warp of the block.
#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kMinStallShare = 0.20;    // a fifth of all stall cycles at barriers
constexpr double kRecoverableShare = 0.5;  // more work per barrier or double buffering removes about half

class BarrierStallsTool final : public DescribedTool {
public:
    BarrierStallsTool()
        : DescribedTool("barrier_stalls", {RooflineClass::latency_bound, RooflineClass::balanced, RooflineClass::memory_bound},
                        DataNeeds{{"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
                                   "smsp__average_warp_latency_per_inst_issued.ratio"},
                                  false, false, false, false, false},
                        "barrier stall >= 20% of CPI; gain = stall share x 0.5") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto share = ctx.stall_share("barrier");
        if (!share || *share < kMinStallShare) return std::nullopt;
        Finding f;
        f.estimated_gain = *share * kRecoverableShare;
        f.evidence.push_back(metric_evidence("barrier share of stall cycles", *share));
        int barriers = ctx.data().sass ? ctx.data().sass->barriers : 0;
        if (barriers) f.evidence.push_back(metric_evidence("BAR instructions in SASS", barriers));
        auto is_bar = [](const profile::SassInstruction& i) { return i.base_opcode() == "BAR"; };
        for (auto& e : ctx.sass_evidence(is_bar, 2)) f.evidence.push_back(std::move(e));
        std::string where = ctx.culprit_source_line(is_bar);
        f.summary = "warps spend " + format_percent(*share) + " of their stall time waiting at block barriers" +
                    (where.empty() ? "" : " (" + where + ")");
        f.remedies = {rewrite_only(Rewrite::more_work_per_barrier)};
        f.guidance = "Do more work between __syncthreads (larger tiles per barrier), double-buffer shared memory so loads of the next tile "
                     "overlap compute, or use smaller blocks so fewer warps wait on the slowest.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_barrier_stalls_tool() { return std::make_unique<BarrierStallsTool>(); }

}  // namespace kp::analysis
