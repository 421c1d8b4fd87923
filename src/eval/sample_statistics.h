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
// help; always stop at `max_seconds` of wall time or `max_samples`.
struct StoppingRule {
    size_t min_samples = 10;
    size_t max_samples = 2000;
    double max_noise = 0.005;
    double max_standard_error = 0.001;
    double min_seconds = 0.1;   // measured (event) time of the candidate
    double max_seconds = 5.0;   // wall time of the whole timing phase

    enum class Verdict { Continue, Converged, StandardError, NoiseSettled, TimeCap, SampleCap };
    Verdict decide(const std::vector<double>& samples, double measured_seconds, double wall_seconds) const;
};

const char* verdict_name(StoppingRule::Verdict v);

}  // namespace kp
