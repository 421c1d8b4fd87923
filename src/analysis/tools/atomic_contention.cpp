// Global atomics that pile onto a few addresses: they serialize in the L2 slice owning those
// addresses, which then works far harder than the others.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// The hottest L2 slice does at least twice the average work: atomics concentrate on few lines.
constexpr double kMinImbalance = 0.50;
// Without L2 data: drain + long-scoreboard + lg-throttle stalls of a kernel issuing atomics.
constexpr double kMinStallShare = 0.40;

class AtomicContentionTool final : public DescribedTool {
public:
    AtomicContentionTool()
        : DescribedTool("atomic_contention", {RooflineClass::latency_bound, RooflineClass::memory_bound, RooflineClass::balanced},
                        DataNeeds{{"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
                                   "lts__cycles_active.max", "lts__cycles_active.avg", "lts__cycles_elapsed.avg",
                                   "smsp__average_warps_issue_stalled_drain_per_issue_active.ratio"},
                                  false, false, false, false, false},
                        "kernel issues global atomics and the hottest L2 slice is >= 2x the average (gain = (max-avg)/max x hot-slice "
                        "busy), else drain+long-scoreboard+lg-throttle stalls >= 40% (gain = share x 0.5)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& m = ctx.metrics();
        double atomics = m.get_or("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0) +
                         m.get_or("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 0);
        int static_atomics = ctx.data().sass ? ctx.data().sass->atomics : 0;
        if (atomics <= 0 && static_atomics == 0) return std::nullopt;
        Finding f;
        auto max_active = m.get("lts__cycles_active.max");
        auto avg_active = m.get("lts__cycles_active.avg");
        auto elapsed = m.get("lts__cycles_elapsed.avg");
        if (max_active && avg_active && elapsed && *max_active > 0 && *elapsed > 0) {
            double imbalance = (*max_active - *avg_active) / *max_active;
            if (imbalance < kMinImbalance) return std::nullopt;
            double hot_busy = clamp01(*max_active / *elapsed);
            f.estimated_gain = imbalance * hot_busy;
            f.evidence.push_back(metric_evidence("hottest L2 slice active cycles / average", *max_active / std::max(1.0, *avg_active)));
            f.evidence.push_back(metric_evidence("hottest L2 slice busy fraction", hot_busy));
        } else {
            double stalls = ctx.stall_share("drain").value_or(0) + ctx.stall_share("long_scoreboard").value_or(0) +
                            ctx.stall_share("lg_throttle").value_or(0);
            if (stalls < kMinStallShare) return std::nullopt;
            f.estimated_gain = stalls * 0.5;
            f.evidence.push_back(metric_evidence("drain+long-scoreboard+lg-throttle share of stalls", stalls));
        }
        if (atomics > 0) f.evidence.push_back(metric_evidence("global atomic/reduction requests", atomics));
        auto is_atomic = [](const profile::SassInstruction& i) {
            auto op = i.base_opcode();
            return op == "ATOM" || op == "ATOMG" || op == "RED" || op == "REDG";
        };
        for (auto& e : ctx.sass_evidence(is_atomic, 1)) f.evidence.push_back(std::move(e));
        f.summary = "global atomics contend on a few addresses: one L2 slice serializes them while the rest idle" +
                    std::string(atomics > 0 ? " (" + format_number(atomics) + " atomic requests)" : "");
        f.remedies = {rewrite_only(Rewrite::privatize_atomics)};
        f.guidance = "Privatize the accumulation: combine per block in shared memory (shared atomics or a block reduction) and issue one "
                     "global atomic per bin per block, or aggregate within the warp first (__match_any_sync / __reduce_add_sync).";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_atomic_contention_tool() { return std::make_unique<AtomicContentionTool>(); }

}  // namespace kp::analysis
