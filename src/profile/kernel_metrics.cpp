#include "profile/kernel_metrics.h"

namespace kp::profile {

const MetricValue* KernelMetrics::find(const std::string& metric) const {
    auto it = metrics.find(metric);
    return it == metrics.end() ? nullptr : &it->second;
}

std::optional<double> KernelMetrics::number(const std::string& metric) const {
    const MetricValue* value = find(metric);
    return value ? value->number() : std::nullopt;
}

}  // namespace kp::profile
