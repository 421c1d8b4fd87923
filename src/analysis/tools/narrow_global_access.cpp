// Memory-bound kernels that move coalesced data with 32-bit (or narrower) instructions where
// 128-bit ones (float4) would keep more bytes in flight per thread.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Measured on H200: a scalar copy reached 62% of DRAM peak, the float4 copy 81% (about 23% less
// time, = 1 - 62/81). So the gain is the narrow share of 1 - SOL/0.80, capped at 30%.
constexpr double kMaxGain = 0.30;
constexpr double kAchievableMemorySol = 0.80;
constexpr double kMinNarrowShare = 0.50;        // most global accesses are 32-bit or narrower
constexpr double kMinBytesPerSector = 24.0;     // coalesced loads: otherwise uncoalesced_global_access applies
constexpr double kMinGlobalInstShare = 0.05;    // below 1 in 20 instructions, width cannot matter

class NarrowGlobalAccessTool final : public DescribedTool {
public:
    NarrowGlobalAccessTool()
        : DescribedTool("narrow_global_access", {RooflineClass::memory_bound, RooflineClass::latency_bound},
                        DataNeeds{{"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                                   "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
                                   "smsp__inst_executed.sum"},
                                  /*sass=*/true, false, false, false, false},
                        ">= 50% of global accesses <= 32-bit, coalesced (>= 24 B/sector), global instructions >= 5%; "
                        "gain = narrow share x (1 - memory SOL/0.80), at most 30%") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto share = narrow_global_access_share(ctx);
        if (!share) return std::nullopt;
        const double narrow = *share;
        double headroom = clamp01(1.0 - ctx.roofline().memory_sol / kAchievableMemorySol);
        Finding f;
        f.estimated_gain = std::min(kMaxGain, narrow * headroom);
        if (f.estimated_gain <= 0) return std::nullopt;
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "global accesses <= 32-bit (static SASS)", format_percent(narrow)));
        f.evidence.push_back(metric_evidence("memory speed-of-light fraction", ctx.roofline().memory_sol));
        auto is_narrow = [](const profile::SassInstruction& i) {
            return (i.base_opcode() == "LDG" || i.base_opcode() == "STG") && profile::memory_access_bits(i) <= 32;
        };
        for (auto& e : ctx.sass_evidence(is_narrow, 2)) f.evidence.push_back(std::move(e));
        std::string where = ctx.culprit_source_line(is_narrow);
        f.summary = "global memory is accessed " + format_percent(narrow) + " with 32-bit or narrower instructions while memory runs at " +
                    format_percent(ctx.roofline().memory_sol) + " of peak" + (where.empty() ? "" : " (at " + where + ")");
        // Wider accesses keep more bytes in flight per thread: both sets point the same way.
        f.remedies = wider_accesses(Rewrite::vectorize_accesses);
        for (auto& r : more_in_flight(Rewrite::vectorize_accesses)) f.remedies.push_back(r);
        f.guidance = "Load and store 16 bytes per thread (float4/int4 via reinterpret_cast on 16-byte-aligned pointers, with a scalar "
                     "tail loop) so each thread keeps more bytes in flight.";
        return f;
    }
};

}  // namespace

std::optional<double> narrow_global_access_share(const ToolContext& ctx) {
    const auto& sass = ctx.data().sass;
    if (!sass) return std::nullopt;
    const auto& m = ctx.metrics();
    int accesses = sass->global_loads.total() + sass->global_stores.total();
    if (accesses == 0) return std::nullopt;
    double narrow = double(sass->global_loads.narrow + sass->global_loads.bits32 + sass->global_stores.narrow +
                           sass->global_stores.bits32) / accesses;
    if (narrow < kMinNarrowShare) return std::nullopt;
    auto bps = m.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio");
    if (bps && *bps > 0 && *bps < kMinBytesPerSector) return std::nullopt;
    double global_inst = m.get_or("smsp__sass_inst_executed_op_global_ld.sum", 0) + m.get_or("smsp__sass_inst_executed_op_global_st.sum", 0);
    auto all_inst = m.get("smsp__inst_executed.sum");
    if (all_inst && *all_inst > 0 && global_inst / *all_inst < kMinGlobalInstShare) return std::nullopt;
    // Loads that re-read cached data many times over: the width is not what costs, reuse is
    // (missing_data_reuse; issue 12's 7x7 stencil reading every neighbour from global drew 30% here).
    if (cache_reuse_multiple(ctx)) return std::nullopt;
    // Loads or stores that waste sectors (a naive transpose's column-walking stores): coalescing them
    // is the fix (uncoalesced_global_access), and wider accesses on that pattern would not help.
    if (wasted_sector_share(ctx)) return std::nullopt;
    return narrow;
}

std::unique_ptr<MicroTool> make_narrow_global_access_tool() { return std::make_unique<NarrowGlobalAccessTool>(); }

}  // namespace kp::analysis
