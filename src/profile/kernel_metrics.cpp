#include "profile/kernel_metrics.h"

#include <cmath>

namespace kp::profile {

const MetricValue* KernelMetrics::find(const std::string& metric) const {
    auto it = metrics.find(metric);
    return it == metrics.end() ? nullptr : &it->second;
}

std::optional<double> KernelMetrics::number(const std::string& metric) const {
    const MetricValue* value = find(metric);
    return value ? value->number() : std::nullopt;
}

int counted_replay_passes(const std::vector<KernelMetrics>& kernels) {
    double total = 0;
    for (const auto& k : kernels) total += k.number(kReplayPassesMetric).value_or(0);
    return static_cast<int>(std::lround(total));
}

}  // namespace kp::profile
