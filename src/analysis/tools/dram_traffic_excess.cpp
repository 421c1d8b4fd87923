// DRAM traffic far above what the task needs, after removing what uncoalesced access and register
// spills already explain (those tools name the cause; this one covers re-reads and extra passes).
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// A streaming kernel lands at 1.0-1.1x its minimal bytes. 1.25x is where the excess is a fifth of
// the traffic, the same bar as the unexplained share below (it was 1.5x, which hid a second pass
// over data that no longer fits the L2: 1.4-1.5x with the pass's L2 hits).
constexpr double kMinRatio = 1.25;
constexpr double kMinUnexplainedShare = 0.20;  // what is left after the specific causes must matter

class DramTrafficExcessTool final : public DescribedTool {
public:
    DramTrafficExcessTool()
        : DescribedTool("dram_traffic_excess", {RooflineClass::memory_bound, RooflineClass::balanced, RooflineClass::latency_bound},
                        DataNeeds{{"dram__bytes_read.sum", "dram__bytes_write.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                   "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                                   "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"},
                                  false, false, false, false, false},
                        "DRAM bytes >= 1.25x the task's minimal bytes and the part not explained by uncoalesced/spill traffic or "
                        "l2_locality's refetches >= 20%; "
                        "gain = unexplained share x memory busy fraction (needs the task's minimal bytes)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& task = ctx.data().task;
        const RooflineResult& r = ctx.roofline();
        if (!task.min_bytes || *task.min_bytes <= 0 || r.dram_bytes <= 0) return std::nullopt;
        double ratio = r.dram_bytes / *task.min_bytes;
        if (ratio < kMinRatio) return std::nullopt;

        // Attribute DRAM bytes to the specific causes in proportion to their share of L1 sectors.
        auto use = ctx.sector_use();
        double explained = 0;
        if (use.known) {
            double all = use.load_sectors + use.store_sectors + use.local_sectors;
            double read = ctx.metrics().get_or("dram__bytes_read.sum", r.dram_bytes);
            if (use.load_sectors + use.local_sectors > 0)
                explained += read * use.excess_load_sectors / (use.load_sectors + ctx.metrics().get_or("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0));
            if (all > 0) explained += r.dram_bytes * use.local_sectors / all;
        }
        // Data other blocks requested again after L2 lost it: l2_locality names that cause.
        const double refetched = l2_refetched_bytes(ctx).value_or(0);
        explained += refetched;
        double unexplained = std::max(0.0, r.dram_bytes - *task.min_bytes - explained);
        double share = unexplained / r.dram_bytes;
        if (share < kMinUnexplainedShare) return std::nullopt;
        Finding f;
        f.estimated_gain = share * ctx.memory_busy();
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "DRAM bytes (read+write)", format_bytes(r.dram_bytes)));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "task minimal bytes", format_bytes(*task.min_bytes)));
        if (explained > refetched)
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "explained by uncoalesced/spill traffic", format_bytes(explained - refetched)));
        if (refetched > 0) f.evidence.push_back(text_evidence(Evidence::Kind::metric, "left to l2_locality (refetched)", format_bytes(refetched)));
        f.summary = "DRAM moves " + format_bytes(r.dram_bytes) + ", " + format_number(ratio) + "x the " + format_bytes(*task.min_bytes) +
                    " the task needs; " + format_percent(share) + " of it is re-fetched data";
        f.remedies = {rewrite_only(Rewrite::reuse_on_chip)};
        f.guidance = "Load each input once per block and reuse it from shared memory or registers (tiling), fuse consecutive passes "
                     "over the same data, and keep intermediates on chip instead of writing and re-reading them.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_dram_traffic_excess_tool() { return std::make_unique<DramTrafficExcessTool>(); }

}  // namespace kp::analysis
