#include "analysis/tools/builtin_tools.h"

namespace kp::analysis {

std::vector<std::unique_ptr<MicroTool>> make_builtin_tools() {
    std::vector<std::unique_ptr<MicroTool>> tools;
    tools.push_back(make_uncoalesced_global_access_tool());
    tools.push_back(make_shared_bank_conflicts_tool());
    tools.push_back(make_narrow_global_access_tool());
    tools.push_back(make_register_spills_tool());
    tools.push_back(make_occupancy_limit_tool());
    tools.push_back(make_small_grid_tail_tool());
    tools.push_back(make_warp_divergence_tool());
    tools.push_back(make_long_scoreboard_latency_tool());
    tools.push_back(make_math_pipe_saturation_tool());
    tools.push_back(make_matmul_without_tensor_cores_tool());
    tools.push_back(make_fp64_or_unfused_math_tool());
    tools.push_back(make_dram_traffic_excess_tool());
    tools.push_back(make_l2_locality_tool());
    tools.push_back(make_launch_overhead_tool());
    tools.push_back(make_barrier_stalls_tool());
    tools.push_back(make_atomic_contention_tool());
    tools.push_back(make_missing_data_reuse_tool());
    tools.push_back(make_unbacked_hardware_claims_tool());
    return tools;
}

}  // namespace kp::analysis
