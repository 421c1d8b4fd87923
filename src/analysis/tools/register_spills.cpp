// Registers spilled to local memory (ptxas spill bytes, LDL/STL in SASS, local traffic in ncu).
#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Local traffic under 5% of L1 sectors costs little; ptxas often spills a few bytes harmlessly.
constexpr double kMinLocalShare = 0.05;
// Without counters we only know spills exist, not how often they run: a capped static guess.
constexpr double kStaticGainCap = 0.25;

class RegisterSpillsTool final : public DescribedTool {
public:
    RegisterSpillsTool()
        : DescribedTool("register_spills", every_class(),
                        DataNeeds{{"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
                                   "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                                   "smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum",
                                   "launch__registers_per_thread"},
                                  false, /*ptxas=*/true, false, false, false},
                        "local-memory sectors >= 5% of L1 global+local sectors; gain = local share x memory busy fraction "
                        "(static: LDL/STL share of memory instructions x 0.5, capped at 25%)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& data = ctx.data();
        const auto* ptxas = data.ptxas ? &*data.ptxas : nullptr;
        const auto* sass = data.sass ? &*data.sass : nullptr;
        auto use = ctx.sector_use();
        Finding f;
        bool spills_known = (ptxas && (ptxas->spill_store_bytes > 0 || ptxas->spill_load_bytes > 0)) ||
                            (sass && sass->local_loads + sass->local_stores > 0);
        if (use.known && use.local_sectors > 0) {
            double share = use.local_sectors / (use.local_sectors + use.load_sectors + use.store_sectors);
            if (share < kMinLocalShare) return std::nullopt;
            f.estimated_gain = share * ctx.memory_busy();
            f.evidence.push_back(metric_evidence("local-memory share of L1 sectors", share));
            f.evidence.push_back(metric_evidence("smsp__sass_inst_executed_op_local_st.sum", ctx.metrics().get_or("smsp__sass_inst_executed_op_local_st.sum", 0)));
            f.evidence.push_back(metric_evidence("smsp__sass_inst_executed_op_local_ld.sum", ctx.metrics().get_or("smsp__sass_inst_executed_op_local_ld.sum", 0)));
        } else if (spills_known && sass) {
            int memory = sass->count(profile::SassClass::global_memory) + sass->count(profile::SassClass::shared_memory) +
                         sass->local_loads + sass->local_stores + sass->count(profile::SassClass::generic_memory);
            double share = memory > 0 ? double(sass->local_loads + sass->local_stores) / memory : 0;
            f.estimated_gain = std::min(kStaticGainCap, share * 0.5);
        } else {
            return std::nullopt;
        }
        if (ptxas) {
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "ptxas", std::to_string(ptxas->registers) + " registers, " +
                                                   std::to_string(ptxas->spill_store_bytes) + " B spill stores, " +
                                                   std::to_string(ptxas->spill_load_bytes) + " B spill loads, " +
                                                   std::to_string(ptxas->stack_frame_bytes) + " B stack frame"));
        }
        if (sass)
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "SASS local accesses",
                                               std::to_string(sass->local_stores) + " STL, " + std::to_string(sass->local_loads) + " LDL"));
        auto is_local = [](const profile::SassInstruction& i) { return i.base_opcode() == "STL" || i.base_opcode() == "LDL"; };
        for (auto& e : ctx.sass_evidence(is_local, 1)) f.evidence.push_back(std::move(e));
        std::string regs = ptxas ? std::to_string(ptxas->registers) : format_number(ctx.metrics().get_or("launch__registers_per_thread", 0));
        f.summary = "registers spill to local memory (" + regs + " registers per thread" +
                    (ptxas ? ", " + std::to_string(ptxas->spill_store_bytes) + " B spilled" : std::string()) +
                    "); local traffic competes with the kernel's real loads";
        f.remedies = fewer_registers();
        f.guidance = "Give the kernel more registers (a smaller minBlocksPerMultiprocessor in __launch_bounds__, no -maxrregcount) "
                     "or keep fewer values live: avoid fully unrolled per-thread arrays and dynamic indexing into them.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_register_spills_tool() { return std::make_unique<RegisterSpillsTool>(); }

}  // namespace kp::analysis
