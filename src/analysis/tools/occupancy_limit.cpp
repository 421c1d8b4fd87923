// Too few resident warps to hide latency: either the theoretical occupancy is capped by one
// resource (registers, shared memory, block size), or the achieved occupancy falls well short of it.
#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Hopper hides most latency with half the warp slots; below that a latency-limited kernel stalls.
constexpr double kTargetOccupancy = 0.50;
// Achieved below theoretical by 20 points or more: imbalance or tail rather than noise.
constexpr double kMinAchievedGap = 0.20;
// More warps recover only the latency-limited part of the time; we credit half.
constexpr double kRecoverableShare = 0.5;

// The resource that limits the blocks per SM: the smallest known limit; on a tie the first of
// blocks, registers, shared memory, warps.
std::string main_limiter(const gpu::Occupancy& o) {
    using gpu::OccupancyLimiter;
    std::string best;
    int smallest = 0;
    for (auto resource : {OccupancyLimiter::blocks, OccupancyLimiter::registers, OccupancyLimiter::shared_memory, OccupancyLimiter::warps})
        if (auto limit = o.blocks_limit(resource); limit && (best.empty() || *limit < smallest)) {
            smallest = *limit;
            best = gpu::to_string(resource);
        }
    return best;
}

std::optional<gpu::Occupancy> occupancy_of(const ToolContext& ctx) {
    std::optional<gpu::Occupancy> info = ctx.data().occupancy;
    if (!info && ctx.data().metrics) info = occupancy_from_metrics(*ctx.data().metrics, ctx.data().ceilings);
    if (!info || info->max_warps_per_sm <= 0) return std::nullopt;
    return info;
}

class OccupancyLimitTool final : public DescribedTool {
public:
    OccupancyLimitTool()
        : DescribedTool("occupancy_limit", {RooflineClass::latency_bound, RooflineClass::memory_bound, RooflineClass::balanced},
                        DataNeeds{{"launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
                                   "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks", "launch__block_size",
                                   "launch__registers_per_thread", "launch__shared_mem_per_block",
                                   // theoretical occupancy comes from the calculator or the free launch__
                                   // limits, so not sm__maximum_warps_per_active_cycle_pct
                                   "sm__warps_active.avg.pct_of_peak_sustained_active",
                                   "launch__waves_per_multiprocessor"},
                                  false, false, false, false, /*occupancy=*/true},
                        "theoretical < 50% of warp slots, or achieved below theoretical by >= 20 points with >= 1 wave; "
                        "gain = shortfall x 0.5") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto info = occupancy_of(ctx);
        if (!info) return std::nullopt;
        const double theoretical = info->theoretical_fraction();
        Finding f;
        if (theoretical > 0 && theoretical < kTargetOccupancy) {
            f.estimated_gain = (kTargetOccupancy - theoretical) / kTargetOccupancy * kRecoverableShare;
            std::string limiter = main_limiter(*info);
            f.summary = "theoretical occupancy is " + format_percent(theoretical) + " of warp slots, limited by " + limiter;
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "limiting resource", limiter));
            using gpu::OccupancyLimiter;
            for (auto resource : {OccupancyLimiter::blocks, OccupancyLimiter::registers, OccupancyLimiter::shared_memory, OccupancyLimiter::warps})
                if (auto blocks = info->blocks_limit(resource))
                    f.evidence.push_back(metric_evidence("blocks per SM allowed by " + gpu::to_string(resource), *blocks));
            f.evidence.push_back(metric_evidence("launch__registers_per_thread", info->registers_per_thread));
            f.remedies = more_occupancy(limiter == "registers"       ? Rewrite::reduce_register_pressure
                                        : limiter == "shared_memory" ? Rewrite::reduce_shared_memory
                                                                     : Rewrite::resize_blocks);
            if (limiter == "registers")
                f.guidance = "Cut registers per thread (fewer live values, __launch_bounds__ with a min-blocks hint) so more blocks fit per SM.";
            else if (limiter == "shared_memory")
                f.guidance = "Use less shared memory per block (smaller tiles or fewer pipeline stages) so more blocks fit per SM.";
            else
                f.guidance = "Use blocks of 128-256 threads so the per-SM block and warp limits allow more resident warps.";
            return f;
        }
        if (!info->achieved_warps_per_sm || theoretical <= 0) return std::nullopt;
        const double achieved = *info->achieved_warps_per_sm / info->max_warps_per_sm;
        auto waves = ctx.metrics().get("launch__waves_per_multiprocessor");
        if (waves && *waves < 1.0) return std::nullopt;  // small_grid_tail explains it
        double gap = (theoretical - achieved) / theoretical;
        if (gap < kMinAchievedGap) return std::nullopt;
        f.estimated_gain = gap * kRecoverableShare;
        f.summary = "achieved occupancy " + format_percent(achieved) + " vs theoretical " + format_percent(theoretical) +
                    ": warps finish unevenly or blocks launch too slowly";
        f.evidence.push_back(metric_evidence("sm__warps_active.avg.pct_of_peak_sustained_active", achieved * 100));
        f.evidence.push_back(metric_evidence("theoretical occupancy %", theoretical * 100));
        f.remedies = more_occupancy(Rewrite::balance_work);
        f.guidance = "Balance work across blocks (grid-stride loops over equal chunks) and avoid a few long-running blocks at the end.";
        return f;
    }
};

}  // namespace

std::optional<double> low_theoretical_occupancy(const ToolContext& ctx) {
    auto info = occupancy_of(ctx);
    if (!info) return std::nullopt;
    const double theoretical = info->theoretical_fraction();
    if (theoretical <= 0 || theoretical >= kTargetOccupancy) return std::nullopt;
    return theoretical;
}

std::unique_ptr<MicroTool> make_occupancy_limit_tool() { return std::make_unique<OccupancyLimitTool>(); }

}  // namespace kp::analysis
