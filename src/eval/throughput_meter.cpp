#include "eval/throughput_meter.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace kp {

namespace {

// Sorted, with overlapping intervals merged.
std::vector<Interval> merged(std::vector<Interval> intervals) {
    std::sort(intervals.begin(), intervals.end(), [](const Interval& x, const Interval& y) { return x.start < y.start; });
    std::vector<Interval> out;
    for (const auto& i : intervals) {
        if (i.end <= i.start) continue;
        if (!out.empty() && i.start <= out.back().end) out.back().end = std::max(out.back().end, i.end);
        else out.push_back(i);
    }
    return out;
}

}  // namespace

double meter_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double union_length(std::vector<Interval> intervals) {
    double total = 0;
    for (const auto& i : merged(std::move(intervals))) total += i.end - i.start;
    return total;
}

double intersection_length(std::vector<Interval> a, std::vector<Interval> b) {
    auto x = merged(std::move(a)), y = merged(std::move(b));
    double total = 0;
    for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
        total += std::max(0.0, std::min(x[i].end, y[j].end) - std::max(x[i].start, y[j].start));
        if (x[i].end < y[j].end) ++i;
        else ++j;
    }
    return total;
}

void ThroughputMeter::note_busy(int slot, Interval interval, bool evaluation) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot < 0 || static_cast<size_t>(slot) >= busy_.size()) return;
    busy_[static_cast<size_t>(slot)].push_back(interval);
    if (evaluation) ++evaluations_[static_cast<size_t>(slot)];
}

void ThroughputMeter::note_compile(Interval interval) {
    std::lock_guard<std::mutex> lock(mutex_);
    compiles_.push_back(interval);
}

ThroughputFigures ThroughputMeter::figures() const {
    std::lock_guard<std::mutex> lock(mutex_);
    ThroughputFigures f;
    f.slots = static_cast<int>(busy_.size());
    f.devices = devices_;
    std::vector<Interval> all_busy;
    double first = 0, last = 0;
    bool any = false;
    auto extend = [&](const Interval& i) {
        first = any ? std::min(first, i.start) : i.start;
        last = any ? std::max(last, i.end) : i.end;
        any = true;
    };
    for (size_t s = 0; s < busy_.size(); ++s) {
        double seconds = union_length(busy_[s]);
        f.busy_seconds_per_slot.push_back(seconds);
        f.evaluations_per_slot.push_back(evaluations_[s]);
        f.gpu_busy_seconds += seconds;
        f.evaluations += evaluations_[s];
        for (const auto& i : busy_[s]) {
            all_busy.push_back(i);
            extend(i);
        }
    }
    for (const auto& i : compiles_) extend(i);
    f.wall_seconds = any ? last - first : 0;
    if (f.wall_seconds > 0) {
        f.busy_fraction = f.gpu_busy_seconds / (f.devices * f.wall_seconds);
        f.candidates_per_gpu_hour = f.evaluations / (f.devices * f.wall_seconds / 3600.0);
    }
    f.compile_seconds = union_length(compiles_);
    f.overlap_seconds = intersection_length(compiles_, all_busy);
    if (f.compile_seconds > 0) f.overlap_fraction = f.overlap_seconds / f.compile_seconds;
    return f;
}

nlohmann::json ThroughputFigures::to_json() const {
    return {{"gpus", devices},
            {"slots", slots},
            {"wall_seconds", wall_seconds},
            {"gpu_busy_seconds", gpu_busy_seconds},
            {"gpu_busy_fraction", busy_fraction},
            {"compile_seconds", compile_seconds},
            {"compile_overlapping_gpu_seconds", overlap_seconds},
            {"compile_timing_overlap", overlap_fraction},
            {"evaluations", evaluations},
            {"candidates_per_gpu_hour", candidates_per_gpu_hour},
            {"busy_seconds_per_gpu", busy_seconds_per_slot},
            {"evaluations_per_gpu", evaluations_per_slot}};
}

std::string ThroughputFigures::summary() const {
    const std::string shared = slots == devices ? "" : fmt::format(" ({} slots)", slots);
    return fmt::format("{} candidates on {} GPU{}{} in {:.1f} s: {:.1f} per GPU-hour, GPUs busy {:.0f}%, {:.0f}% of compiling overlapped GPU work",
                       evaluations, devices, devices == 1 ? "" : "s", shared, wall_seconds, candidates_per_gpu_hour, 100 * busy_fraction,
                       100 * overlap_fraction);
}

}  // namespace kp
