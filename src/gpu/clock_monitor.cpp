#include "gpu/clock_monitor.h"

namespace kp::gpu {

ClockMonitor ClockMonitor::open(const std::string& pci_bus_id, const std::string& library) {
    ClockMonitor monitor;
    auto nvml = Nvml::load_from(library);
    if (!nvml) {
        monitor.why_unavailable_ = nvml.error().message;
        return monitor;
    }
    monitor.driver_version_ = nvml->driver_version();
    auto index = nvml->index_for_pci_bus_id(pci_bus_id);
    if (!index) {
        monitor.why_unavailable_ = index.error().message;
        return monitor;
    }
    monitor.index_ = *index;
    monitor.nvml_ = std::move(*nvml);
    return monitor;
}

ClockMonitor::Reading ClockMonitor::read() const {
    Reading reading;
    if (!index_) return reading;
    auto sample = nvml_->clock_sample(*index_);
    if (!sample) return reading;
    reading.sm_clock_mhz = sample->sm_clock_mhz.value_or(0);
    reading.throttled = sample->clock_event_reasons && clock_events_limit_performance(*sample->clock_event_reasons);
    return reading;
}

}  // namespace kp::gpu
