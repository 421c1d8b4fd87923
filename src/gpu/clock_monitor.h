// The SM clock and whether it is held down, read through NVML after every timed sample, for the
// GPU the caller runs on, found by its PCI bus id (CUDA and NVML may number GPUs differently).
// Throttled means clock_events_limit_performance (the one throttle policy). Without NVML, or when
// the device cannot be found, every reading is empty and available() says so.
#pragma once

#include <optional>
#include <string>

#include "gpu/nvml_library.h"

namespace kp::gpu {

class ClockMonitor {
public:
    // `library` names the NVML to load (tests load a stand-in); the real one by default.
    static ClockMonitor open(const std::string& pci_bus_id, const std::string& library = "libnvidia-ml.so.1");

    bool available() const { return index_.has_value(); }
    const std::string& driver_version() const { return driver_version_; }
    const std::string& why_unavailable() const { return why_unavailable_; }

    struct Reading {
        unsigned sm_clock_mhz = 0;  // 0 when unknown
        bool throttled = false;
    };
    Reading read() const;

private:
    std::optional<Nvml> nvml_;
    std::optional<unsigned> index_;
    std::string driver_version_;
    std::string why_unavailable_;
};

}  // namespace kp::gpu
