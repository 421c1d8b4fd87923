// Data re-read from the caches many times its footprint: each block or thread loads the same
// global addresses again (a stencil reading every neighbour from global memory) where a tile in
// shared memory or a window in registers would load them once. DRAM sees the footprint, so
// dram_traffic_excess and l2_locality stay quiet; the time goes to the L1/L2 traffic and the
// load instructions themselves. A new tool rather than an extension of those two: its evidence
// (cache requests, not DRAM bytes), its trigger (DRAM near the footprint) and its cost model (the
// cache level's time) are all different.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Re-reads matter once the caches move more than the DRAM would for the minimal bytes: a level
// whose traffic is more than (its bandwidth / DRAM bandwidth) times the minimal bytes takes longer
// than the whole task needs from DRAM. On H200: L1 33.5 / DRAM 3.9-4.8 TB/s, about 8x; L2 8.3 / 3.9,
// about 2x. Used when the ceilings lack a rate.
constexpr double kDefaultL1Multiple = 8.0;
constexpr double kDefaultL2Multiple = 2.0;
// The re-reads must be served by the caches: DRAM reads within 1.5x the minimal bytes (above that
// they reach DRAM, and dram_traffic_excess or l2_locality names the cause).
constexpr double kMaxDramMultiple = 1.5;
// With reuse on chip a kernel still loads its input (and halo) once: about the minimal bytes.
constexpr double kReachableMultiple = 1.0;
// A tiled kernel still issues its shared-memory loads: reuse makes such kernels 2-4x faster, not
// more; cap the gain at 1 - 1/4.
constexpr double kMaxGain = 0.75;

struct CacheReuse {
    double multiple = 0;     // cache traffic / minimal bytes at the level that triggered
    double threshold = 0;    // the multiple at which that level outlasts the DRAM floor
    double level_busy = 0;   // that level's (or the LSU pipe's) busy fraction
    const char* level = "";  // "L1" or "L2"
};

double rate_ratio(const gpu::DeviceCeilings& c, const char* level, double fallback) {
    const double dram = c.at_reference_clock(gpu::ceiling_name::dram);
    const double rate = c.at_reference_clock(level);
    return dram > 0 && rate > 0 ? rate / dram : fallback;
}

std::optional<CacheReuse> cache_reuse(const ToolContext& ctx) {
    const auto& task = ctx.data().task;
    if (!task.min_bytes || *task.min_bytes <= 0) return std::nullopt;
    const double minimal = *task.min_bytes;
    const auto& m = ctx.metrics();
    auto dram_read = m.get("dram__bytes_read.sum");
    if (!dram_read || *dram_read > kMaxDramMultiple * minimal) return std::nullopt;
    auto use = ctx.sector_use();
    if (!use.known) return std::nullopt;
    // Useful bytes only: the wasted part of uncoalesced sectors is uncoalesced_global_access's,
    // local-memory traffic register_spills'.
    const double l1 = std::max(0.0, use.load_sectors - use.excess_load_sectors) * 32.0;
    const double l2 = std::max(0.0, m.get_or("lts__t_sectors_srcunit_tex_op_read.sum", 0) - use.excess_load_sectors - use.local_sectors) * 32.0;
    const RooflineResult& r = ctx.roofline();
    const double lsu = ctx.pipe_utilization("lsu").value_or(0);
    const gpu::DeviceCeilings& c = ctx.data().ceilings;
    CacheReuse l1_reuse{l1 / minimal, rate_ratio(c, gpu::ceiling_name::l1, kDefaultL1Multiple), std::max(r.l1_sol, lsu), "L1"};
    CacheReuse l2_reuse{l2 / minimal, rate_ratio(c, gpu::ceiling_name::l2, kDefaultL2Multiple), std::max(r.l2_sol, lsu), "L2"};
    const bool l1_fires = l1_reuse.multiple >= l1_reuse.threshold, l2_fires = l2_reuse.multiple >= l2_reuse.threshold;
    if (!l1_fires && !l2_fires) return std::nullopt;
    // A matrix product's re-reads are matmul_without_tensor_cores' to fix (tiles on tensor cores).
    if (matrix_product_evidence(ctx)) return std::nullopt;
    if (l1_fires && l2_fires) return l1_reuse.multiple / l1_reuse.threshold >= l2_reuse.multiple / l2_reuse.threshold ? l1_reuse : l2_reuse;
    return l1_fires ? l1_reuse : l2_reuse;
}

class MissingDataReuseTool final : public DescribedTool {
public:
    MissingDataReuseTool()
        : DescribedTool("missing_data_reuse", {RooflineClass::memory_bound, RooflineClass::latency_bound, RooflineClass::balanced},
                        DataNeeds{{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
                                   "dram__bytes_read.sum", "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                                   "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                                   ToolContext::pipe_metric("lsu")},
                                  false, false, false, false, false},
                        "useful global-load bytes at L1 >= (L1/DRAM bandwidth, ~8x on H200) x the task's minimal bytes, or L2 reads "
                        ">= (L2/DRAM, ~2x) x it, with DRAM reads <= 1.5x it (re-reads served by the caches) and no matrix product; "
                        "gain = that level's (or the LSU pipe's) busy fraction x (1 - minimal / traffic), at most 75%") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto reuse = cache_reuse(ctx);
        if (!reuse) return std::nullopt;
        Finding f;
        f.estimated_gain = std::min(kMaxGain, clamp01(reuse->level_busy) * clamp01(1.0 - kReachableMultiple / reuse->multiple));
        if (f.estimated_gain <= 0) return std::nullopt;
        const std::string level = reuse->level;
        f.evidence.push_back(metric_evidence(level + " global-load traffic / task's minimal bytes", reuse->multiple));
        f.evidence.push_back(metric_evidence(level + " bandwidth / DRAM bandwidth (where re-reads start to cost)", reuse->threshold));
        f.evidence.push_back(metric_evidence(level + " (or LSU) busy fraction", reuse->level_busy));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "DRAM bytes read", format_bytes(ctx.metrics().get_or("dram__bytes_read.sum", 0))));
        auto is_load = [](const profile::SassInstruction& i) { return i.base_opcode() == "LDG" || i.base_opcode() == "LD"; };
        for (auto& e : ctx.sass_evidence(is_load, 2)) f.evidence.push_back(std::move(e));
        const int loads = ctx.data().sass ? ctx.data().sass->global_loads.total() : 0;
        std::string where = ctx.culprit_source_line(is_load);
        f.summary = "the kernel reads " + format_number(reuse->multiple) + "x the task's minimal bytes through " + level +
                    " while DRAM sees about the footprint: the same data is loaded again and again" +
                    (loads > 1 ? " (" + std::to_string(loads) + " global loads in SASS" + (where.empty() ? "" : ", from " + where) + ")"
                               : where.empty() ? std::string() : " (at " + where + ")");
        f.remedies = {rewrite_only(Rewrite::reuse_on_chip)};
        f.guidance = "Load each input once per block into shared memory (a tile with its halo) and read the neighbours from there, or "
                     "keep a sliding window in registers (each thread computes several outputs); separable filters need one pass per "
                     "axis.";
        return f;
    }
};

}  // namespace

std::optional<double> cache_reuse_multiple(const ToolContext& ctx) {
    auto reuse = cache_reuse(ctx);
    if (!reuse) return std::nullopt;
    return reuse->multiple;
}

std::unique_ptr<MicroTool> make_missing_data_reuse_tool() { return std::make_unique<MissingDataReuseTool>(); }

}  // namespace kp::analysis
