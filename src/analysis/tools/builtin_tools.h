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

std::vector<std::unique_ptr<MicroTool>> make_builtin_tools();

class ToolContext;
// The share of global accesses that are 32-bit or narrower, when narrow_global_access's trigger
// holds (coalesced, enough global instructions); nullopt otherwise. long_scoreboard_latency uses it
// to leave the stalls that narrow accesses explain to the tool that names that cause.
std::optional<double> narrow_global_access_share(const ToolContext& ctx);

}  // namespace kp::analysis
