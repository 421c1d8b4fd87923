// Where the wall time of many evaluations went: intervals of GPU work (one track per pool slot) and
// of compiling, and the figures issue 16 asks for: GPU busy fraction, compile/timing overlap and
// candidates per GPU-hour. A plain recorder, safe to call from any thread; times are steady-clock
// seconds, so the tests can feed it made-up intervals.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kp {

struct Interval {
    double start = 0, end = 0;
};

struct ThroughputFigures {
    int slots = 0;                 // GPU slots the pool held
    int devices = 0;               // the GPUs they are on (slots sharing a GPU take turns on it)
    double wall_seconds = 0;       // first start to last end of anything recorded
    double gpu_busy_seconds = 0;   // summed over the slots
    double busy_fraction = 0;      // gpu_busy_seconds / (devices * wall_seconds)
    double compile_seconds = 0;    // the union of the compile intervals
    double overlap_seconds = 0;    // compile time during which at least one slot was busy
    double overlap_fraction = 0;   // overlap_seconds / compile_seconds (0 when nothing compiled)
    long evaluations = 0;          // candidates that reached the GPU
    double candidates_per_gpu_hour = 0;  // evaluations / (devices * wall hours)
    std::vector<double> busy_seconds_per_slot;
    std::vector<long> evaluations_per_slot;

    nlohmann::json to_json() const;
    // "3 candidates on 2 GPUs in 41.0 s: 131.7 per GPU-hour, GPUs busy 62%, 80% of compiling overlapped GPU work"
    // ("on 1 GPU (2 slots)" when slots share a GPU)
    std::string summary() const;
};

// The length of the union of `intervals` (overlaps counted once).
double union_length(std::vector<Interval> intervals);
// The length of (union of a) intersected with (union of b).
double intersection_length(std::vector<Interval> a, std::vector<Interval> b);

class ThroughputMeter {
public:
    // `devices`: how many GPUs the slots are on (0: one per slot).
    explicit ThroughputMeter(int slots, int devices = 0)
        : busy_(static_cast<size_t>(slots > 0 ? slots : 1)), evaluations_(busy_.size(), 0),
          devices_(devices > 0 ? devices : static_cast<int>(busy_.size())) {}
    void note_busy(int slot, Interval interval, bool evaluation);
    void note_compile(Interval interval);
    ThroughputFigures figures() const;

private:
    mutable std::mutex mutex_;
    std::vector<std::vector<Interval>> busy_;
    std::vector<long> evaluations_;
    std::vector<Interval> compiles_;
    int devices_;
};

// Steady-clock seconds now, the meter's time base.
double meter_now();

}  // namespace kp
