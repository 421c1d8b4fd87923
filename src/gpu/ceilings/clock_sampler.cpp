#include "gpu/ceilings/clock_sampler.h"

#include <algorithm>
#include <chrono>
#include <numeric>

namespace kp::ceilings {

ClockSampler::ClockSampler(std::optional<gpu::Nvml> nvml, unsigned nvml_index)
    : nvml_(std::move(nvml)), index_(nvml_index) {}

ClockSampler::~ClockSampler() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
}

void ClockSampler::start() {
    if (!nvml_) return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        sm_clocks_mhz_.clear();
        power_mw_.clear();
        reasons_ = 0;
    }
    running_ = true;
    thread_ = std::thread([this] { run(); });
}

void ClockSampler::run() {
    while (running_) {
        auto sample = nvml_->sample(index_);
        if (sample) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (sample->sm_clock_mhz) sm_clocks_mhz_.push_back(*sample->sm_clock_mhz);
            if (sample->power_milliwatts) power_mw_.push_back(*sample->power_milliwatts);
            // gpu_idle shows between launches; it says nothing about the measurement.
            if (sample->clock_event_reasons) reasons_ |= (*sample->clock_event_reasons & ~std::uint64_t{1});
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void ClockSampler::stop_into(gpu::Ceiling& ceiling) {
    running_ = false;
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mutex_);
    if (!sm_clocks_mhz_.empty()) {
        double sum = std::accumulate(sm_clocks_mhz_.begin(), sm_clocks_mhz_.end(), 0.0);
        ceiling.sm_clock_mhz_mean = sum / sm_clocks_mhz_.size();
        ceiling.sm_clock_mhz_min = *std::min_element(sm_clocks_mhz_.begin(), sm_clocks_mhz_.end());
    }
    if (!power_mw_.empty())
        ceiling.power_watts_mean = std::accumulate(power_mw_.begin(), power_mw_.end(), 0.0) / power_mw_.size() / 1000.0;
    ceiling.clock_event_reasons = gpu::describe_clock_event_reasons(reasons_);
}

}  // namespace kp::ceilings
