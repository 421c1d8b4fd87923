#include "analysis/metric_reader.h"

namespace kp::analysis {

std::optional<double> MetricReader::get(std::string_view name) const {
    if (!metrics_) return std::nullopt;
    std::string key(name);
    if (auto v = metrics_->number(key)) return v;
    const std::string suffix = "." + key;
    for (const auto& [metric, value] : metrics_->metrics) {
        if (metric.size() > suffix.size() && metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) == 0)
            if (auto v = value.number()) return v;
    }
    return std::nullopt;
}

std::optional<double> MetricReader::first_of(std::initializer_list<std::string_view> names) const {
    for (std::string_view name : names)
        if (auto v = get(name)) return v;
    return std::nullopt;
}

std::optional<double> MetricReader::counter_sum(std::string_view base) const {
    std::string name(base);
    if (auto v = get(name + ".sum")) return v;
    auto rate = get(name + ".sum.per_cycle_elapsed");
    if (!rate) return std::nullopt;
    size_t unit_end = name.find("__");
    if (unit_end == std::string::npos) return std::nullopt;
    auto cycles = get(name.substr(0, unit_end) + "__cycles_elapsed.avg");
    if (!cycles) return std::nullopt;
    return *rate * *cycles;
}

}  // namespace kp::analysis
