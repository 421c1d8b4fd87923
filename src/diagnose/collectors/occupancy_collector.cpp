// "occupancy": occupancy for the real launch. The driver's own calculation, which ncu reports as
// launch__occupancy_limit_* (free metrics) and the worker's counters reply carries too, is the
// reference; our calculator (ptxas resources + the launch's block size and dynamic shared memory)
// stands in without it and is checked against it. After stage 2, which may bring the
// achieved-occupancy counter.
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "diagnose/collector.h"
#include "diagnose/profile_session.h"
#include "gpu/occupancy.h"

namespace kp::diagnose {

namespace {

int parse_block_threads(const std::string& block) {
    // "(256, 1, 1)" -> 256
    int product = 1, count = 0;
    std::string digits;
    for (char ch : block + ",") {
        if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
        else if (!digits.empty()) {
            product *= std::stoi(digits);
            digits.clear();
            ++count;
        }
    }
    return count ? product : 0;
}

gpu::LaunchConfiguration launch_of(const analysis::ProfileData& data) {
    const profile::KernelMetrics& m = *data.metrics;
    gpu::LaunchConfiguration launch;
    launch.threads_per_block = parse_block_threads(m.block);
    if (launch.threads_per_block <= 0) launch.threads_per_block = static_cast<int>(m.number("launch__block_size").value_or(0));
    launch.registers_per_thread = data.ptxas ? data.ptxas->registers : static_cast<int>(m.number("launch__registers_per_thread").value_or(0));
    launch.static_shared_memory_bytes = data.ptxas ? data.ptxas->shared_bytes
                                                   : static_cast<long>(m.number("launch__shared_mem_per_block_static").value_or(0));
    launch.dynamic_shared_memory_bytes = static_cast<long>(m.number("launch__shared_mem_per_block_dynamic").value_or(0));
    return launch;
}

void set_achieved(gpu::Occupancy& occupancy, const profile::KernelMetrics& m) {
    if (auto pct = m.number("sm__warps_active.avg.pct_of_peak_sustained_active"))
        occupancy.achieved_warps_per_sm = *pct / 100.0 * occupancy.max_warps_per_sm;
    else if (auto warps = m.number("sm__warps_active.avg.per_cycle_active"))
        occupancy.achieved_warps_per_sm = *warps;
}

void reconcile(ProfileSession& s, analysis::ProfileData& data) {
    gpu::LaunchConfiguration launch = launch_of(data);
    if (launch.threads_per_block <= 0) return;
    auto occ = gpu::compute_occupancy(s.ceilings.limits, launch);
    auto from_driver = analysis::occupancy_from_metrics(*data.metrics, s.ceilings.value);
    if (from_driver && from_driver->source == "driver") {
        data.occupancy = *from_driver;
        if (occ && std::abs(occ->active_warps_per_sm - from_driver->active_warps_per_sm) >= 1.0)
            s.report.notes.push_back(fmt::format("occupancy {}: our calculator gives {} warps per SM, the driver {} (using the driver's)",
                                                 short_kernel_name(data.kernel_name), occ->active_warps_per_sm,
                                                 from_driver->active_warps_per_sm));
    } else if (occ) {
        data.occupancy = *occ;
    } else if (from_driver) {
        data.occupancy = *from_driver;
    }
    if (data.occupancy) set_achieved(*data.occupancy, *data.metrics);
}

class OccupancyCollector final : public Collector {
public:
    std::string_view name() const override { return "occupancy"; }
    std::string_view provides() const override {
        return "each launch's blocks per SM by resource (the driver's calculation, else ours) and the achieved occupancy";
    }
    std::vector<CollectorStage> stages() const override { return {CollectorStage::reconcile}; }
    profile::CollectorCost declared_cost() const override { return {0, 0.0}; }

    Status collect(CollectorStage, ProfileSession& s) const override {
        for (auto& data : s.kernels)
            if (data.metrics) reconcile(s, data);
        return {};
    }
};

}  // namespace

std::unique_ptr<Collector> make_occupancy_collector() { return std::make_unique<OccupancyCollector>(); }

}  // namespace kp::diagnose
