// Factories of the built-in micro-profiling tools, one per file in this folder.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "analysis/micro_tool.h"

namespace kp::analysis {

std::unique_ptr<MicroTool> make_uncoalesced_global_access_tool();
std::unique_ptr<MicroTool> make_shared_bank_conflicts_tool();
std::unique_ptr<MicroTool> make_narrow_global_access_tool();
std::unique_ptr<MicroTool> make_register_spills_tool();
std::unique_ptr<MicroTool> make_occupancy_limit_tool();
std::unique_ptr<MicroTool> make_small_grid_tail_tool();
std::unique_ptr<MicroTool> make_warp_divergence_tool();
std::unique_ptr<MicroTool> make_long_scoreboard_latency_tool();
std::unique_ptr<MicroTool> make_math_pipe_saturation_tool();
std::unique_ptr<MicroTool> make_matmul_without_tensor_cores_tool();
std::unique_ptr<MicroTool> make_fp64_or_unfused_math_tool();
std::unique_ptr<MicroTool> make_dram_traffic_excess_tool();
std::unique_ptr<MicroTool> make_l2_locality_tool();
std::unique_ptr<MicroTool> make_launch_overhead_tool();
std::unique_ptr<MicroTool> make_barrier_stalls_tool();
std::unique_ptr<MicroTool> make_atomic_contention_tool();
std::unique_ptr<MicroTool> make_missing_data_reuse_tool();
std::unique_ptr<MicroTool> make_unbacked_hardware_claims_tool();

std::vector<std::unique_ptr<MicroTool>> make_builtin_tools();

class ToolContext;
// The share of global accesses that are 32-bit or narrower, when narrow_global_access's trigger
// holds (coalesced, enough global instructions); nullopt otherwise. long_scoreboard_latency uses it
// to leave the stalls that narrow accesses explain to the tool that names that cause.
std::optional<double> narrow_global_access_share(const ToolContext& ctx);

// What says a kernel computes a matrix product (matmul_without_tensor_cores' trigger): FFMA fed by
// global/shared loads, not local memory, re-reading what it loads, with FLOPs per byte above twice
// the FP32 ridge; nullopt when any of it is missing. missing_data_reuse leaves the re-reads of a
// matrix product to that tool, whose remedy (tiles on tensor cores) removes them too.
struct MatrixProductEvidence {
    double flops = 0, bytes = 0, intensity = 0;  // from the task when it states both, else achieved
    bool from_task = false;
    double reuse = 0;  // bytes loads delivered per DRAM byte read; 0 when not counted
};
std::optional<MatrixProductEvidence> matrix_product_evidence(const ToolContext& ctx);

// The multiple of the task's minimal bytes that global loads move through L1 or L2 when
// missing_data_reuse's trigger holds (re-reads served by the caches); nullopt otherwise.
// narrow_global_access leaves such loads to it: widening re-reads of cached data does not remove them.
std::optional<double> cache_reuse_multiple(const ToolContext& ctx);

// The share of global sectors fetched or written without a useful byte when
// uncoalesced_global_access's trigger holds (at least a fifth wasted); nullopt otherwise.
// narrow_global_access leaves such kernels to it: widening accesses that scatter over sectors does
// not remove the wasted sectors, coalescing them comes first.
std::optional<double> wasted_sector_share(const ToolContext& ctx);

// The DRAM bytes read beyond the footprint when l2_locality's trigger holds (data requested again
// by other blocks after L2 lost it); nullopt otherwise. dram_traffic_excess leaves them to it.
std::optional<double> l2_refetched_bytes(const ToolContext& ctx);

// Theoretical occupancy (0..1) when occupancy_limit's first trigger holds (below half the warp
// slots); nullopt otherwise. long_scoreboard_latency leaves the stalls too few warps explain to it.
std::optional<double> low_theoretical_occupancy(const ToolContext& ctx);

}  // namespace kp::analysis
