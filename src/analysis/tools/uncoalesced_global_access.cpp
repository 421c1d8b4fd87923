// Global loads/stores that fetch 32-byte sectors but use few of their bytes (strided or scattered
// addresses within a warp).
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Below a fifth of wasted sectors the waste is within what alignment and boundary effects give
// well-written kernels (ncu's rules fire on any excess, which is why they flood).
constexpr double kMinExcessShare = 0.20;

class UncoalescedGlobalAccessTool final : public DescribedTool {
public:
    UncoalescedGlobalAccessTool()
        : DescribedTool("uncoalesced_global_access",
                        {RooflineClass::memory_bound, RooflineClass::latency_bound, RooflineClass::balanced},
                        DataNeeds{{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                   "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                                   "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                                   "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"},
                                  false, false, /*source_page=*/true, false, false},
                        "wasted sectors >= 20% of global sectors; gain = wasted share x memory busy fraction") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto wasted = wasted_sector_share(ctx);
        if (!wasted) return std::nullopt;
        const double share = *wasted;
        auto use = ctx.sector_use();

        Finding f;
        // Fixing the pattern removes the wasted sectors; the time saved is that share of the time
        // the memory system limits the kernel.
        f.estimated_gain = share * ctx.memory_busy();
        const bool loads_worse = use.excess_load_sectors >= use.excess_store_sectors;
        const double bps = loads_worse ? use.load_bytes_per_sector : use.store_bytes_per_sector;
        const auto& m = ctx.metrics();
        const char* op = loads_worse ? "ld" : "st";
        auto requests = m.get(std::string("l1tex__t_requests_pipe_lsu_mem_global_op_") + op + ".sum");
        double sectors = loads_worse ? use.load_sectors : use.store_sectors;
        f.evidence.push_back(metric_evidence(std::string("smsp__sass_average_data_bytes_per_sector_mem_global_op_") + op + ".ratio", bps));
        if (requests && *requests > 0)
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "sectors per request (global " + std::string(loads_worse ? "loads" : "stores") + ")",
                                               format_number(sectors / *requests)));
        f.evidence.push_back(metric_evidence("wasted sector share", share));

        // Per-instruction evidence from the source page: the worst instructions by excess sectors.
        std::string where;
        if (const auto& page = ctx.data().source) {
            std::vector<const profile::SourceRow*> rows;
            for (const auto& row : page->rows)
                if (row.number("L2 Theoretical Sectors Global").value_or(0) > row.number("L2 Theoretical Sectors Global Ideal").value_or(0))
                    rows.push_back(&row);
            std::sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
                auto excess = [](const profile::SourceRow* r) {
                    return r->number("L2 Theoretical Sectors Global").value_or(0) - r->number("L2 Theoretical Sectors Global Ideal").value_or(0);
                };
                return excess(a) > excess(b);
            });
            for (size_t i = 0; i < rows.size() && i < 2; ++i) {
                const auto* row = rows[i];
                std::string name = "offset " + std::to_string(row->offset);
                if (row->line) name = "line " + std::to_string(*row->line);
                f.evidence.push_back(text_evidence(Evidence::Kind::source, name,
                                                   row->sass + " (" + format_number(row->number("L2 Theoretical Sectors Global").value_or(0)) +
                                                       " sectors, ideal " + format_number(row->number("L2 Theoretical Sectors Global Ideal").value_or(0)) + ")"));
            }
        }
        auto is_access = [&](const profile::SassInstruction& i) {
            return loads_worse ? (i.base_opcode() == "LDG" || i.base_opcode() == "LD") : (i.base_opcode() == "STG" || i.base_opcode() == "ST");
        };
        where = ctx.culprit_source_line(is_access);
        for (auto& e : ctx.sass_evidence(is_access, 2)) f.evidence.push_back(std::move(e));

        f.summary = std::string("uncoalesced global ") + (loads_worse ? "loads" : "stores") + ": each 32-byte sector delivers only " +
                    format_number(bps) + " useful bytes, " + format_percent(share) + " of global sectors are wasted" +
                    (where.empty() ? "" : " (at " + where + ")");
        f.remedies = wider_accesses(Rewrite::coalesce_accesses);
        f.guidance = "Make consecutive threads of a warp access consecutive addresses: index with threadIdx.x in the fastest-varying "
                     "dimension, or load a tile coalesced into shared memory and read it in the scattered order from there.";
        return f;
    }
};

}  // namespace

std::optional<double> wasted_sector_share(const ToolContext& ctx) {
    auto use = ctx.sector_use();
    const double total = use.load_sectors + use.store_sectors;
    if (!use.known || total <= 0) return std::nullopt;
    const double share = (use.excess_load_sectors + use.excess_store_sectors) / total;
    if (share < kMinExcessShare) return std::nullopt;
    return share;
}

std::unique_ptr<MicroTool> make_uncoalesced_global_access_tool() { return std::make_unique<UncoalescedGlobalAccessTool>(); }

}  // namespace kp::analysis
