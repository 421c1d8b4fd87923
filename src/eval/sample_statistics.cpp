#include "eval/sample_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kp {

namespace {
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0.0;
    double position = q * static_cast<double>(sorted.size() - 1);
    size_t lower = static_cast<size_t>(std::floor(position));
    size_t upper = std::min(lower + 1, sorted.size() - 1);
    double fraction = position - static_cast<double>(lower);
    return sorted[lower] + fraction * (sorted[upper] - sorted[lower]);
}

double relative_stddev(const std::vector<double>& values) {
    if (values.size() < 2) return INFINITY;
    double mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
    double ss = 0;
    for (double v : values) ss += (v - mean) * (v - mean);
    double sd = std::sqrt(ss / static_cast<double>(values.size() - 1));
    return mean > 0 ? sd / mean : INFINITY;
}
}  // namespace

nlohmann::json SampleSummary::to_json() const {
    return {{"count", count}, {"median", median}, {"q1", q1}, {"q3", q3}, {"min", min}, {"max", max},
            {"mean", mean}, {"stddev", stddev}, {"relative_stddev", relative_stddev}};
}

SampleSummary summarize(std::vector<double> samples) {
    SampleSummary s;
    s.count = samples.size();
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    s.min = samples.front();
    s.max = samples.back();
    s.median = quantile(samples, 0.5);
    s.q1 = quantile(samples, 0.25);
    s.q3 = quantile(samples, 0.75);
    s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
    if (samples.size() > 1) {
        double ss = 0;
        for (double v : samples) ss += (v - s.mean) * (v - s.mean);
        s.stddev = std::sqrt(ss / static_cast<double>(samples.size() - 1));
    }
    s.relative_stddev = s.mean > 0 ? s.stddev / s.mean : 0.0;
    return s;
}

StoppingRule::Verdict StoppingRule::decide(const std::vector<double>& samples, double measured_seconds,
                                           double wall_seconds) const {
    if (samples.size() >= max_samples) return Verdict::SampleCap;
    if (wall_seconds >= max_seconds) return Verdict::TimeCap;
    if (samples.size() < min_samples || measured_seconds < min_seconds) return Verdict::Continue;
    double noise = relative_stddev(samples);
    if (noise < max_noise) return Verdict::Converged;
    if (max_standard_error > 0 && noise / std::sqrt(static_cast<double>(samples.size())) < max_standard_error)
        return Verdict::StandardError;
    if (max_median_interval > 0 && median_interval_half_width(samples) < max_median_interval) return Verdict::MedianPinned;
    // Noise settled: the noise estimate over the last windows moves by under 5% of itself.
    constexpr size_t kWindow = 16;
    if (samples.size() >= 4 * kWindow) {
        std::vector<double> noises;
        for (size_t end = samples.size() - 3 * kWindow; end <= samples.size(); end += kWindow)
            noises.push_back(relative_stddev(std::vector<double>(samples.begin(), samples.begin() + static_cast<long>(end))));
        if (relative_stddev(noises) < 0.05) return Verdict::NoiseSettled;
    }
    return Verdict::Continue;
}

double median_interval_half_width(std::vector<double> samples) {
    const size_t n = samples.size();
    if (n < 6) return INFINITY;
    std::sort(samples.begin(), samples.end());
    const double half = 1.96 * std::sqrt(static_cast<double>(n)) / 2;
    // 1-based ranks of the bounds, clipped to the sample.
    const auto lower = static_cast<size_t>(std::max(1.0, std::floor(static_cast<double>(n) / 2 - half)));
    const auto upper = static_cast<size_t>(std::min(static_cast<double>(n), std::ceil(static_cast<double>(n) / 2 + 1 + half)));
    const double median = quantile(samples, 0.5);
    if (median <= 0) return INFINITY;
    return (samples[upper - 1] - samples[lower - 1]) / (2 * median);
}

const char* verdict_name(StoppingRule::Verdict v) {
    switch (v) {
        case StoppingRule::Verdict::Continue: return "continue";
        case StoppingRule::Verdict::Converged: return "converged";
        case StoppingRule::Verdict::StandardError: return "standard_error";
        case StoppingRule::Verdict::MedianPinned: return "median_pinned";
        case StoppingRule::Verdict::NoiseSettled: return "noise_settled";
        case StoppingRule::Verdict::TimeCap: return "time_cap";
        case StoppingRule::Verdict::SampleCap: return "sample_cap";
    }
    return "?";
}

}  // namespace kp
