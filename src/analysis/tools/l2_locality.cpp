// Data that is re-requested from L2 (reused across blocks) but misses there and goes back to DRAM.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kMaxHitRate = 0.50;   // below half of reads hit, reuse is mostly lost
constexpr double kMinReuse = 1.5;      // the data is requested at least 1.5x its footprint
constexpr double kMinRefetch = 1.3;    // and DRAM reads exceed the footprint by 30%

// What l2_locality's trigger reads: the read hit rate, L2 read requests and DRAM reads against the
// footprint (the task's minimal bytes).
struct Refetch {
    double hit_rate = 0, reuse = 0, refetch = 0, footprint = 0, dram_read = 0;
};

std::optional<Refetch> l2_refetch(const ToolContext& ctx) {
    const auto& m = ctx.metrics();
    const auto& task = ctx.data().task;
    if (!task.min_bytes || *task.min_bytes <= 0) return std::nullopt;
    auto requests = m.get("lts__t_sectors_srcunit_tex_op_read.sum");
    auto hits = m.get("lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum");
    auto dram_read = m.get("dram__bytes_read.sum");
    if (!requests || !dram_read || *requests <= 0) return std::nullopt;
    Refetch r;
    r.hit_rate = hits ? *hits / *requests : m.get_or("lts__t_sector_hit_rate.pct", 100) / 100.0;
    if (r.hit_rate >= kMaxHitRate) return std::nullopt;
    auto use = ctx.sector_use();
    double reused_bytes = std::max(0.0, *requests - use.excess_load_sectors) * 32.0;
    r.footprint = *task.min_bytes;
    r.dram_read = *dram_read;
    r.reuse = reused_bytes / r.footprint;
    r.refetch = *dram_read / r.footprint;
    if (r.reuse < kMinReuse || r.refetch < kMinRefetch) return std::nullopt;
    return r;
}

class L2LocalityTool final : public DescribedTool {
public:
    L2LocalityTool()
        : DescribedTool("l2_locality", {RooflineClass::memory_bound, RooflineClass::balanced, RooflineClass::latency_bound},
                        DataNeeds{{"lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
                                   // not lts__t_sector_hit_rate.pct: 3 replay passes alone (H200), and the two
                                   // read counters give the read hit rate in the passes they share
                                   "dram__bytes_read.sum"},
                                  false, false, false, false, false},
                        "L2 read hit rate < 50%, L2 read requests >= 1.5x the footprint (after removing uncoalesced excess) and DRAM "
                        "reads >= 1.3x it; gain = refetched share of DRAM reads x DRAM busy (needs the task's minimal bytes)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto r = l2_refetch(ctx);
        if (!r) return std::nullopt;
        Finding f;
        f.estimated_gain = (1.0 - r->footprint / r->dram_read) * clamp01(ctx.roofline().dram_sol);
        f.evidence.push_back(metric_evidence("L2 read hit rate", r->hit_rate));
        f.evidence.push_back(metric_evidence("L2 read requests / footprint", r->reuse));
        f.evidence.push_back(metric_evidence("DRAM reads / footprint", r->refetch));
        f.summary = "data is requested " + format_number(r->reuse) + "x its footprint but only " + format_percent(r->hit_rate) +
                    " of L2 reads hit, so DRAM reads are " + format_number(r->refetch) + "x the footprint";
        f.remedies = {rewrite_only(Rewrite::improve_l2_locality)};
        f.guidance = "Order blocks so those sharing inputs run together (tile rasterization / swizzled block index), shrink the working set "
                     "per wave below the 60 MB L2, or pin the reused buffer with an L2 access-policy window.";
        return f;
    }
};

}  // namespace

std::optional<double> l2_refetched_bytes(const ToolContext& ctx) {
    auto refetch = l2_refetch(ctx);
    if (!refetch) return std::nullopt;
    return std::max(0.0, refetch->dram_read - refetch->footprint);
}

std::unique_ptr<MicroTool> make_l2_locality_tool() { return std::make_unique<L2LocalityTool>(); }

}  // namespace kp::analysis
