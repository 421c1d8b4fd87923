// Summary statistics of timing samples, and the stopping rule that decides when there are enough.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

namespace kp {

struct SampleSummary {
    size_t count = 0;
    double median = 0, q1 = 0, q3 = 0, min = 0, max = 0, mean = 0;
    double stddev = 0;             // Bessel-corrected
    double relative_stddev = 0;    // stddev / mean
    nlohmann::json to_json() const;
};

// Quartiles by linear interpolation between order statistics (the "type 7" definition).
SampleSummary summarize(std::vector<double> samples);

// nvbench-style "stdrel" rule: never before `min_samples` and `min_seconds` of measured time; stop
// once the relative standard deviation is under `max_noise`; or once the median is pinned down
// (relative standard error, stddev / mean / sqrt(n), under `max_standard_error`, as GPU MODE's
// harness does), which ends steady-but-jittery runs after tens of samples instead of hundreds; or
// when the noise itself has settled (its last values vary by under 5%) so more samples would not
// help; or once the median itself is pinned down: the distribution-free 95% confidence interval of
// the median (between two order statistics) spans under `max_median_interval` of it on each side,
// which needs no assumption about the shape of the noise and ignores outliers; always stop at
// `max_seconds` of wall time or `max_samples`.
struct StoppingRule {
    // Measured on the H200 (docs/benchmarks.md, 2026-12-03): with queued starts the per-sample
    // noise of the example tasks is 0.1-0.5%, and 20 samples give medians whose spread over five
    // evaluations is under 0.5%; the old floor of 0.1 s of measured time (300+ samples of a 0.3 ms
    // kernel) bought no precision and cost 2 s per candidate.
    size_t min_samples = 20;
    size_t max_samples = 2000;
    double max_noise = 0.005;
    double max_standard_error = 0.001;
    double max_median_interval = 0.0025;  // 0: off
    double min_seconds = 0.005;  // measured (event) time of the candidate
    double max_seconds = 5.0;   // wall time of the whole timing phase

    enum class Verdict { Continue, Converged, StandardError, MedianPinned, NoiseSettled, TimeCap, SampleCap };
    Verdict decide(const std::vector<double>& samples, double measured_seconds, double wall_seconds) const;
};

const char* verdict_name(StoppingRule::Verdict v);

// Half the width of the distribution-free 95% confidence interval of the median, relative to the
// median: order statistics n/2 -+ 1.96 sqrt(n)/2 (the normal approximation to the binomial).
// Infinite below 6 samples, where no such interval exists.
double median_interval_half_width(std::vector<double> samples);

}  // namespace kp
