// Reads ncu metrics by name with the fallbacks real reports need: a counter may appear as ".sum"
// (live --metrics) or only as ".sum.per_cycle_elapsed" (the full set's raw page), and PM-sampling
// copies carry a prefix ("SM_B.TriageCompute.l1tex__t_sectors.sum").
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "profile/kernel_metrics.h"

namespace kp::analysis {

class MetricReader {
public:
    explicit MetricReader(const profile::KernelMetrics* metrics) : metrics_(metrics) {}

    bool available() const { return metrics_ != nullptr; }
    // Exact name, else a prefixed copy "<prefix>.<name>".
    std::optional<double> get(std::string_view name) const;
    double get_or(std::string_view name, double fallback) const { return get(name).value_or(fallback); }
    // The first of several names that is present.
    std::optional<double> first_of(std::initializer_list<std::string_view> names) const;
    // A counter's total over the kernel: "<base>.sum", else "<base>.sum.per_cycle_elapsed" times
    // "<unit>__cycles_elapsed.avg" (unit = the part before "__").
    std::optional<double> counter_sum(std::string_view base) const;

private:
    const profile::KernelMetrics* metrics_;
};

}  // namespace kp::analysis
