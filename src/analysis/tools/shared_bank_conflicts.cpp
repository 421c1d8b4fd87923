// Shared-memory accesses that hit the same bank from several lanes and replay as extra wavefronts.
#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// NVIDIA's SharedMemoryConflicts rule uses 10% of wavefronts; we keep it, gain-gating does the rest.
constexpr double kMinConflictShare = 0.10;

class SharedBankConflictsTool final : public DescribedTool {
public:
    SharedBankConflictsTool()
        : DescribedTool("shared_bank_conflicts",
                        {RooflineClass::memory_bound, RooflineClass::latency_bound, RooflineClass::balanced},
                        DataNeeds{{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                                   "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                   "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                   "smsp__sass_inst_executed_op_shared_ld.sum", "smsp__sass_inst_executed_op_shared_st.sum",
                                   "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed"},
                                  false, false, true, false, false},
                        "conflict wavefronts >= 10% of shared wavefronts; gain = conflict share x shared-pipe busy fraction") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& m = ctx.metrics();
        double conflicts = m.get_or("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0) +
                           m.get_or("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0);
        double ld_wavefronts = m.get_or("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0);
        double st_wavefronts = m.get_or("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0);
        double wavefronts = ld_wavefronts + st_wavefronts;
        if (wavefronts <= 0 || conflicts <= 0) return std::nullopt;
        double share = clamp01(conflicts / wavefronts);
        if (share < kMinConflictShare) return std::nullopt;

        // How busy the shared-memory data path is: its own pct counter, else the L1 wavefront SOL.
        double pipe_busy = ctx.roofline().l1_sol;
        if (auto pct = m.get("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed")) pipe_busy = *pct / 100.0;
        Finding f;
        f.estimated_gain = share * clamp01(pipe_busy);

        double ld_requests = m.get_or("smsp__sass_inst_executed_op_shared_ld.sum", 0);
        double st_requests = m.get_or("smsp__sass_inst_executed_op_shared_st.sum", 0);
        const bool loads_worse = m.get_or("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0) >=
                                 m.get_or("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0);
        double ways = loads_worse ? (ld_requests > 0 ? ld_wavefronts / ld_requests : 0) : (st_requests > 0 ? st_wavefronts / st_requests : 0);
        f.evidence.push_back(metric_evidence("bank conflicts (ld+st)", conflicts));
        f.evidence.push_back(metric_evidence("shared wavefronts (ld+st)", wavefronts));
        if (ways > 0) f.evidence.push_back(text_evidence(Evidence::Kind::metric, "wavefronts per shared request", format_number(ways)));
        if (const auto& page = ctx.data().source) {
            for (const auto& row : page->rows) {
                double nway = row.number("L1 Conflicts Shared N-Way").value_or(0);
                if (nway > 1) {
                    f.evidence.push_back(text_evidence(Evidence::Kind::source, row.line ? "line " + std::to_string(*row.line) : "offset " + std::to_string(row.offset),
                                                       row.sass + " (" + format_number(nway) + "-way)"));
                    break;
                }
            }
        }
        auto is_shared = [&](const profile::SassInstruction& i) { return i.base_opcode() == (loads_worse ? "LDS" : "STS"); };
        for (auto& e : ctx.sass_evidence(is_shared, 1)) f.evidence.push_back(std::move(e));
        std::string where = ctx.culprit_source_line(is_shared);
        f.summary = std::string("shared-memory ") + (loads_worse ? "loads" : "stores") + " are " + format_number(ways) +
                    "-way bank conflicted: " + format_percent(share) + " of shared wavefronts are replays" +
                    (where.empty() ? "" : " (at " + where + ")");
        f.remedies = {rewrite_only(Rewrite::remove_bank_conflicts)};
        f.guidance = "Give each lane of a warp a different bank: pad the shared array's inner dimension by one element "
                     "(e.g. tile[32][33] instead of tile[32][32]) or XOR-swizzle the column index.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_shared_bank_conflicts_tool() { return std::make_unique<SharedBankConflictsTool>(); }

}  // namespace kp::analysis
