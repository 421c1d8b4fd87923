// Warps whose lanes take different paths, so instructions run with few active threads.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// NVIDIA's ThreadDivergence rule: fewer than 24 of 32 threads active on average.
constexpr double kMinActiveThreads = 24.0;

class WarpDivergenceTool final : public DescribedTool {
public:
    WarpDivergenceTool()
        : DescribedTool("warp_divergence", {RooflineClass::latency_bound, RooflineClass::compute_bound, RooflineClass::balanced},
                        DataNeeds{{"smsp__thread_inst_executed_per_inst_executed.ratio",
                                   "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
                                   "smsp__sass_average_branch_targets_threads_uniform.pct", "smsp__issue_active.avg.pct_of_peak_sustained_active"},
                                  false, false, false, false, false},
                        "< 24 active threads per executed instruction; gain = (1 - active/32) x issue-busy fraction") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& m = ctx.metrics();
        auto executed = m.get("smsp__thread_inst_executed_per_inst_executed.ratio");
        auto predicated = m.get("smsp__thread_inst_executed_pred_on_per_inst_executed.ratio");
        if (!executed && !predicated) return std::nullopt;
        double active = std::min(executed.value_or(32.0), predicated.value_or(32.0));
        if (active >= kMinActiveThreads) return std::nullopt;
        // Divergence costs issue slots: it matters as much as the schedulers are busy.
        double issue_busy = m.get("smsp__issue_active.avg.pct_of_peak_sustained_active").value_or(ctx.roofline().compute_sol * 100) / 100.0;
        Finding f;
        f.estimated_gain = (1.0 - active / 32.0) * clamp01(issue_busy);
        f.evidence.push_back(metric_evidence("active threads per instruction", active));
        if (auto uniform = m.get("smsp__sass_average_branch_targets_threads_uniform.pct"))
            f.evidence.push_back(metric_evidence("smsp__sass_average_branch_targets_threads_uniform.pct", *uniform));
        if (const auto& page = ctx.data().source) {
            for (const auto& row : page->rows)
                if (row.number("Divergent Branches").value_or(0) > 0) {
                    f.evidence.push_back(text_evidence(Evidence::Kind::source, row.line ? "line " + std::to_string(*row.line) : "offset " + std::to_string(row.offset),
                                                       row.sass + " (" + format_number(*row.number("Divergent Branches")) + " divergent branches)"));
                    break;
                }
        }
        f.summary = "only " + format_number(active) + " of 32 threads are active per instruction on average (warp divergence)";
        f.remedies = {rewrite_only(Rewrite::uniform_branches)};
        f.guidance = "Make branch conditions uniform per warp (sort or bin the work so neighbouring threads take the same path) or "
                     "replace short divergent branches with arithmetic selects.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_warp_divergence_tool() { return std::make_unique<WarpDivergenceTool>(); }

}  // namespace kp::analysis
