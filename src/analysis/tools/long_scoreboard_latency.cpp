// Warps waiting on global/local loads (long scoreboard) while the memory system is far from busy:
// too few bytes in flight, not too little bandwidth.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kMinStallShare = 0.30;   // NVIDIA's CPIStall threshold: the stall is > 30% of CPI
constexpr double kAchievableMemorySol = 0.80;
constexpr double kRecoverableShare = 0.5;  // more ILP/warps rarely hides the whole stall
constexpr double kHalfOccupancy = 0.5;     // occupancy_limit's target: Hopper hides most latency there

class LongScoreboardLatencyTool final : public DescribedTool {
public:
    LongScoreboardLatencyTool()
        : DescribedTool("long_scoreboard_latency", {RooflineClass::latency_bound, RooflineClass::balanced},
                        DataNeeds{{"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
                                   "smsp__average_warp_latency_per_inst_issued.ratio",
                                   // not smsp__warps_eligible/active (shown when present): evidence only, and
                                   // leaving them out of the default profile saved a replay pass on the H200
                                   // narrow_global_access_share's counters: that cause is named by its own tool
                                   "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                                   "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
                                   "smsp__inst_executed.sum"},
                                  /*sass=*/true, false, false, false, false},
                        "long-scoreboard stall >= 30% of CPI with memory < 60% of peak; "
                        "gain = min(stall share, 1 - memory SOL/0.8) x 0.5 x the share of global accesses that are not "
                        "narrow (narrow ones are narrow_global_access's)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto share = ctx.stall_share("long_scoreboard");
        if (!share || *share < kMinStallShare) return std::nullopt;
        const double memory_sol = ctx.roofline().memory_sol;
        // A memory-bound kernel is expected to wait on loads; this tool is about latency, not bandwidth.
        if (memory_sol >= kBoundThreshold) return std::nullopt;
        Finding f;
        f.estimated_gain = std::min(*share, clamp01(1.0 - memory_sol / kAchievableMemorySol)) * kRecoverableShare;
        // Narrow (32-bit) accesses keep few bytes in flight per thread: when most are narrow, that is
        // the more specific cause and narrow_global_access says what to change; keep the rest.
        const double narrow = narrow_global_access_share(ctx).value_or(0.0);
        f.estimated_gain *= 1.0 - narrow;
        // Too few warps resident to hide the latency (theoretical occupancy under half): the stalls
        // are occupancy_limit's, which names the resource to free; keep the part that more warps
        // (up to half the slots) would not hide.
        const auto occupancy = low_theoretical_occupancy(ctx);
        if (occupancy) f.estimated_gain *= *occupancy / kHalfOccupancy;
        if (f.estimated_gain <= 0) return std::nullopt;
        if (narrow > 0) f.evidence.push_back(text_evidence(Evidence::Kind::metric, "left to narrow_global_access", format_percent(narrow)));
        if (occupancy) f.evidence.push_back(text_evidence(Evidence::Kind::metric, "left to occupancy_limit (theoretical occupancy)", format_percent(*occupancy)));
        const auto& m = ctx.metrics();
        f.evidence.push_back(metric_evidence("long-scoreboard share of stall cycles", *share));
        f.evidence.push_back(metric_evidence("memory speed-of-light fraction", memory_sol));
        if (auto eligible = m.get("smsp__warps_eligible.avg.per_cycle_active"))
            f.evidence.push_back(metric_evidence("smsp__warps_eligible.avg.per_cycle_active", *eligible));
        if (auto active = m.get("smsp__warps_active.avg.per_cycle_active"))
            f.evidence.push_back(metric_evidence("smsp__warps_active.avg.per_cycle_active", *active));
        if (const auto& page = ctx.data().source) {
            const profile::SourceRow* worst = nullptr;
            for (const auto& row : page->rows)
                if (!worst || row.number("stall_long_sb").value_or(0) > worst->number("stall_long_sb").value_or(0)) worst = &row;
            if (worst && worst->number("stall_long_sb").value_or(0) > 0)
                f.evidence.push_back(text_evidence(Evidence::Kind::source, worst->line ? "line " + std::to_string(*worst->line) : "offset " + std::to_string(worst->offset),
                                                   worst->sass + " (" + format_number(*worst->number("stall_long_sb")) + " long-scoreboard samples)"));
        }
        f.summary = "warps spend " + format_percent(*share) + " of their time waiting for global/local loads while memory runs at only " +
                    format_percent(memory_sol) + " of peak: too little data in flight";
        f.remedies = more_in_flight(Rewrite::more_loads_in_flight);
        f.guidance = "Issue independent loads earlier and together (unroll so each thread has several loads in flight, prefetch the next "
                     "iteration's data, or use cp.async) and make sure enough warps are resident.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_long_scoreboard_latency_tool() { return std::make_unique<LongScoreboardLatencyTool>(); }

}  // namespace kp::analysis
