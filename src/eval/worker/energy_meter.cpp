#include "eval/worker/energy_meter.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <thread>

#include "eval/sample_statistics.h"
#include "eval/worker/worker_failure.h"
#include "gpu/nvml_library.h"

namespace kp::worker {

namespace {

using Clock = std::chrono::steady_clock;
double now_seconds() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

// Raised when the counter cannot be used (no NVML, no counter, it stopped updating); the
// evaluation goes on without energy.
struct CounterUnavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace

class EnergyCounter {
public:
    EnergyCounter() {
        auto nvml = gpu::Nvml::load();
        if (!nvml.ok()) throw CounterUnavailable(nvml.error().message);
        nvml_ = std::move(*nvml);
        char bus_id[64] = {};
        if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0) == cudaSuccess)
            if (auto index = nvml_->index_for_pci_bus_id(bus_id); index.ok()) index_ = *index;
        // Every NVML query used later runs once here, before the sandbox: whatever NVML opens or
        // sets up on first use is done while that is still allowed; later reads are ioctls.
        read();
        (void)state();
    }
    std::uint64_t read() const {
        auto value = nvml_->total_energy_millijoules(index_);
        if (!value.ok()) throw CounterUnavailable(value.error().message);
        return *value;
    }
    // Spins until the counter changes: (value, time) right after an update.
    std::pair<std::uint64_t, double> next_update(double limit_seconds) const {
        std::uint64_t first = read();
        double start = now_seconds();
        for (;;) {
            std::uint64_t value = read();
            double t = now_seconds();
            if (value != first) return {value, t};
            if (t - start > limit_seconds)
                throw CounterUnavailable("the energy counter did not change for " + std::to_string(limit_seconds) + " s");
        }
    }
    nlohmann::json state() const {
        auto sample = nvml_->sample(index_);
        nlohmann::json j = sample.ok() ? nlohmann::json(*sample) : nlohmann::json::object();
        if (sample.ok() && sample->clock_event_reasons) j["throttled"] = gpu::clock_events_limit_performance(*sample->clock_event_reasons);
        return j;
    }

private:
    std::optional<gpu::Nvml> nvml_;
    unsigned index_ = 0;
};

void EnergyCounterDeleter::operator()(EnergyCounter* counter) const { delete counter; }

EnergyCounterHandle open_energy_counter(std::string& why) {
    try {
        return EnergyCounterHandle(new EnergyCounter());
    } catch (const std::exception& e) {
        why = e.what();
        return nullptr;
    }
}

namespace {
using Counter = EnergyCounter;

// Keeps the GPU busy with one side's calls: batches of about 20 ms, at most two in flight, `poll`
// called while waiting (false: stop queuing). Returns how many calls were queued; the caller
// waits for them to finish.
std::uint64_t keep_busy(const EnergySide& side, std::uint64_t max_calls, double call_timeout_seconds,
                        const std::function<bool()>& poll) {
    const std::uint64_t batch = std::clamp<std::uint64_t>(
        static_cast<std::uint64_t>(std::ceil(0.02 / std::max(side.median_call_seconds, 1e-7))), 1, 200000);
    cudaEvent_t events[2];
    for (auto& e : events) check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    std::uint64_t queued = 0;
    int in_flight = 0, slot = 0;
    bool go_on = true;
    auto wait_for = [&](cudaEvent_t e) {
        double start = now_seconds(), limit = call_timeout_seconds + 20 * batch * side.median_call_seconds;
        for (cudaError_t r; (r = cudaEventQuery(e)) != cudaSuccess;) {
            if (r != cudaErrorNotReady) check_cuda(r, "energy window: kernel failed");
            go_on = poll() && go_on;
            if (now_seconds() - start > limit)
                throw WorkerFailure(FailureClass::Timeout, "energy window: a batch of calls did not finish in time", "energy");
        }
    };
    while (go_on && queued < max_calls) {
        std::uint64_t n = std::min(batch, max_calls - queued);
        for (std::uint64_t k = 0; k < n; ++k) side.enqueue(queued + k);
        queued += n;
        check_cuda(cudaEventRecord(events[slot], cudaStreamLegacy), "cudaEventRecord");
        slot ^= 1;
        if (++in_flight == 2) {
            wait_for(events[slot]);  // the older batch
            --in_flight;
        }
        go_on = poll() && go_on;
    }
    for (auto& e : events) cudaEventDestroy(e);
    return queued;
}

// The counter's update period: the median interval between changes while the side's calls run.
double measure_update_period(const Counter& counter, GpuSession& gpu, const EnergySide& side, double call_timeout_seconds) {
    std::vector<double> changes;
    std::uint64_t last = counter.read();
    double start = now_seconds();
    keep_busy(side, UINT64_MAX, call_timeout_seconds, [&] {
        std::uint64_t value = counter.read();
        if (value != last) {
            last = value;
            changes.push_back(now_seconds());
        }
        return changes.size() < 12 && now_seconds() - start < 3.0;
    });
    gpu.wait_all("energy: counter period");
    if (changes.size() < 4) throw CounterUnavailable("the energy counter changed " + std::to_string(changes.size()) + " times in 3 s of work");
    std::vector<double> intervals;
    for (size_t i = 2; i < changes.size(); ++i) intervals.push_back(changes[i] - changes[i - 1]);  // the first is partial
    return summarize(intervals).median;
}

double measure_idle_watts(const Counter& counter, double period) {
    auto [e0, t0] = counter.next_update(std::max(1.0, 20 * period));
    std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.5, 5 * period)));
    auto [e1, t1] = counter.next_update(std::max(1.0, 20 * period));
    return (static_cast<double>(e1 - e0) / 1000.0) / (t1 - t0);
}

struct Window {
    std::uint64_t calls = 0;
    double seconds = 0, joules = 0;
    nlohmann::json state;
};

Window measure_window(const Counter& counter, GpuSession& gpu, const EnergySide& side, std::uint64_t calls,
                      double period, double idle_watts, double call_timeout_seconds) {
    double limit = std::max(1.0, 20 * period);
    auto [e0, t0] = counter.next_update(limit);
    Window w;
    w.calls = keep_busy(side, calls, call_timeout_seconds, [] { return true; });
    gpu.wait_all("energy window (" + side.role + ")");
    double done = now_seconds();
    auto [e1, t1] = counter.next_update(limit);
    w.seconds = done - t0;
    w.joules = static_cast<double>(e1 - e0) / 1000.0 - idle_watts * (t1 - done);
    w.state = counter.state();
    side.verify();
    return w;
}

nlohmann::json side_json(const std::vector<Window>& windows) {
    std::vector<double> per_call;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& w : windows) {
        per_call.push_back(w.joules / static_cast<double>(w.calls));
        list.push_back({{"calls", w.calls}, {"seconds", w.seconds}, {"joules", w.joules},
                        {"joules_per_call", per_call.back()}, {"average_watts", w.joules / w.seconds}, {"state", w.state}});
    }
    auto s = summarize(per_call);
    int throttled = 0;
    for (const auto& w : windows) throttled += w.state.value("throttled", false) ? 1 : 0;
    return {{"joules_per_call", s.median}, {"joules_per_call_mean", s.mean}, {"joules_per_call_stddev", s.stddev},
            {"joules_per_call_min", s.min}, {"joules_per_call_max", s.max}, {"relative_stddev", s.relative_stddev},
            {"calls_per_window", windows.empty() ? 0 : windows.front().calls}, {"throttled_windows", throttled}, {"windows", list}};
}

}  // namespace

nlohmann::json measure_energy(const EnergyConfig& config, const EnergyCounter* opened, const std::string& why_no_counter,
                              GpuSession& gpu, const Channel& channel, const std::vector<EnergySide>& sides,
                              double call_timeout_seconds) {
    if (!opened) return {{"available", false}, {"reason", why_no_counter}};
    try {
        const Counter& counter = *opened;
        channel.progress("energy", {{"step", "counter period"}});
        double period = measure_update_period(counter, gpu, sides.front(), call_timeout_seconds);
        double idle_watts = measure_idle_watts(counter, period);
        double window_seconds = std::max(config.min_window_seconds, config.period_factor * period);
        std::vector<std::vector<Window>> windows(sides.size());
        for (int w = 0; w < std::max(1, config.windows); ++w) {
            channel.progress("energy", {{"window", w + 1}, {"of", config.windows}});
            for (size_t k = 0; k < sides.size(); ++k) {
                // Alternate the order every window, as timing does, so drift hits both sides alike.
                const EnergySide& side = sides[w % 2 == 0 ? k : sides.size() - 1 - k];
                auto calls = static_cast<std::uint64_t>(std::ceil(window_seconds / std::max(side.median_call_seconds, 1e-7)));
                windows[w % 2 == 0 ? k : sides.size() - 1 - k].push_back(
                    measure_window(counter, gpu, side, calls, period, idle_watts, call_timeout_seconds));
            }
        }
        nlohmann::json result = {{"available", true}, {"counter_update_period_s", period}, {"window_seconds", window_seconds},
                                 {"idle_watts", idle_watts}, {"windows", config.windows}};
        for (size_t k = 0; k < sides.size(); ++k) result[sides[k].role] = side_json(windows[k]);
        if (result.contains("baseline") && result.contains("candidate") && result["candidate"]["joules_per_call"].get<double>() > 0)
            result["energy_ratio"] = result["baseline"]["joules_per_call"].get<double>() / result["candidate"]["joules_per_call"].get<double>();
        return result;
    } catch (const CounterUnavailable& e) {
        return {{"available", false}, {"reason", e.what()}};
    }
}

}  // namespace kp::worker
