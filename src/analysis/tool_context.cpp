#include "analysis/tool_context.h"

#include <algorithm>
#include <cstdio>

namespace kp::analysis {

ToolContext::ToolContext(const ProfileData& data, const RooflineResult& roofline)
    : data_(data), roofline_(roofline), metrics_(data.metrics ? &*data.metrics : nullptr) {}

double ToolContext::memory_busy() const { return std::clamp(roofline_.memory_sol, 0.0, 1.0); }

std::optional<double> ToolContext::stall_share(std::string_view reason) const {
    auto cpi = metrics_.get("smsp__average_warp_latency_per_inst_issued.ratio");
    auto stall = metrics_.get("smsp__average_warps_issue_stalled_" + std::string(reason) + "_per_issue_active.ratio");
    if (!cpi || !stall || *cpi <= 0) return std::nullopt;
    return std::clamp(*stall / *cpi, 0.0, 1.0);
}

std::string ToolContext::pipe_metric(std::string_view pipe) {
    return "sm__inst_executed_pipe_" + std::string(pipe) + ".avg.pct_of_peak_sustained_active";
}

std::optional<double> ToolContext::pipe_utilization(std::string_view pipe) const {
    auto pct = metrics_.get(pipe_metric(pipe));
    if (!pct) pct = metrics_.get("sm__pipe_" + std::string(pipe) + "_cycles_active.avg.pct_of_peak_sustained_active");
    if (!pct) return std::nullopt;
    return std::clamp(*pct / 100.0, 0.0, 1.0);
}

std::optional<double> ToolContext::thread_instructions(std::string_view op) const {
    const std::string suffix = "sass_thread_inst_executed_op_" + std::string(op) + "_pred_on";
    if (auto v = metrics_.counter_sum("sm__" + suffix)) return v;
    return metrics_.counter_sum("smsp__" + suffix);
}

ToolContext::SectorUse ToolContext::sector_use() const {
    SectorUse use;
    auto ld = metrics_.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    auto st = metrics_.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    if (!ld && !st) return use;
    use.known = true;
    use.load_sectors = ld.value_or(0);
    use.store_sectors = st.value_or(0);
    use.local_sectors = metrics_.get_or("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 0) +
                        metrics_.get_or("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 0);
    // Bytes used per 32-byte sector: 32 is perfect, 4 means one float per sector.
    auto ld_bps = metrics_.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio");
    auto st_bps = metrics_.get("smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio");
    if (ld_bps && *ld_bps > 0) use.load_bytes_per_sector = std::min(32.0, *ld_bps);
    if (st_bps && *st_bps > 0) use.store_bytes_per_sector = std::min(32.0, *st_bps);
    use.excess_load_sectors = use.load_sectors * (1.0 - use.load_bytes_per_sector / 32.0);
    use.excess_store_sectors = use.store_sectors * (1.0 - use.store_bytes_per_sector / 32.0);
    return use;
}

Evidence instruction_evidence(const profile::SassInstruction& instruction) {
    char offset[32];
    std::snprintf(offset, sizeof offset, "0x%04llx", static_cast<unsigned long long>(instruction.offset));
    std::string name = offset;
    if (instruction.location) name += " " + instruction.location->file + ":" + std::to_string(instruction.location->line);
    return Evidence{Evidence::Kind::sass, name, instruction.text()};
}

}  // namespace kp::analysis
