// Reads the SM clock and clock-event (throttle) reasons through NVML, loaded at run time; when NVML
// is missing every reading is 0 and `available()` says so.
#pragma once

#include <string>

namespace kp::worker {

class SmClockProbe {
public:
    SmClockProbe();
    bool available() const { return device_ != nullptr; }
    unsigned sm_clock_mhz() const;
    // True when the GPU reports a slowdown reason other than idle or application clock settings.
    bool throttled() const;
    std::string driver_version() const { return driver_version_; }

private:
    void* library_ = nullptr;
    void* device_ = nullptr;
    int (*get_clock_)(void*, int, unsigned*) = nullptr;
    int (*get_reasons_)(void*, unsigned long long*) = nullptr;
    std::string driver_version_;
};

}  // namespace kp::worker
