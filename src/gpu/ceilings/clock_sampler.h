// Samples NVML (SM clock, power, clock event reasons) on a background thread while a measurement
// runs, so each ceiling says at which clock it was reached. Absent NVML, it records nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "gpu/ceilings.h"
#include "gpu/nvml_library.h"

namespace kp::ceilings {

class ClockSampler {
public:
    ClockSampler(std::optional<gpu::Nvml> nvml, unsigned nvml_index);
    ~ClockSampler();

    void start();
    // Stops sampling and writes the clock, power and reasons seen into `ceiling`.
    void stop_into(gpu::Ceiling& ceiling);

    bool available() const { return nvml_.has_value(); }

private:
    void run();

    std::optional<gpu::Nvml> nvml_;
    unsigned index_ = 0;
    std::thread thread_;
    std::atomic<bool> running_{false};
    std::mutex mutex_;
    std::vector<unsigned> sm_clocks_mhz_;
    std::vector<unsigned> power_mw_;
    std::uint64_t reasons_ = 0;
};

}  // namespace kp::ceilings
