#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "eval/sample_statistics.h"
#include "eval/throttle_policy.h"

using namespace kp;

TEST(SampleStatistics, QuartilesAndSpread) {
    auto s = summarize({5, 1, 3, 2, 4});
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.median, 3);
    EXPECT_DOUBLE_EQ(s.q1, 2);
    EXPECT_DOUBLE_EQ(s.q3, 4);
    EXPECT_DOUBLE_EQ(s.min, 1);
    EXPECT_DOUBLE_EQ(s.max, 5);
    EXPECT_NEAR(s.stddev, 1.5811388, 1e-6);
    auto even = summarize({1, 2, 3, 4});
    EXPECT_DOUBLE_EQ(even.median, 2.5);
    EXPECT_DOUBLE_EQ(even.q1, 1.75);
}

TEST(StoppingRule, NeedsMinimumsThenStopsOnLowNoise) {
    StoppingRule rule;
    rule.min_samples = 10;
    rule.min_seconds = 0.001;
    std::vector<double> steady(9, 1e-4);
    EXPECT_EQ(rule.decide(steady, 1.0, 0.1), StoppingRule::Verdict::Continue);  // too few samples
    steady.push_back(1e-4);
    EXPECT_EQ(rule.decide(steady, 0.0005, 0.1), StoppingRule::Verdict::Continue);  // too little measured time
    EXPECT_EQ(rule.decide(steady, 0.002, 0.1), StoppingRule::Verdict::Converged);
}

TEST(StoppingRule, StandardErrorEndsSteadyJitteryRuns) {
    StoppingRule rule;
    rule.min_seconds = 0;
    std::mt19937 rng(3);
    std::normal_distribution<double> jitter(1.0, 0.006);  // 0.6% noise: never under 0.5% reliably
    std::vector<double> samples;
    StoppingRule::Verdict v = StoppingRule::Verdict::Continue;
    while (v == StoppingRule::Verdict::Continue && samples.size() < 5000) {
        samples.push_back(jitter(rng));
        v = rule.decide(samples, 1.0, 0.0);
    }
    if (v == StoppingRule::Verdict::StandardError) {
        EXPECT_GE(samples.size(), 30u);  // 0.6% / sqrt(n) < 0.1% needs n > 36, give or take the noise estimate
        EXPECT_LE(samples.size(), 80u);
    } else {
        EXPECT_EQ(v, StoppingRule::Verdict::Converged);
    }
}

TEST(StoppingRule, NoisyRunsStopAtTheCapOrWhenNoiseSettles) {
    StoppingRule rule;
    rule.min_seconds = 0;
    rule.max_standard_error = 0;  // this test is about the settled-noise rule
    std::mt19937 rng(7);
    std::normal_distribution<double> noisy(1.0, 0.1);  // 10% noise never converges to 0.5%
    std::vector<double> samples;
    StoppingRule::Verdict v = StoppingRule::Verdict::Continue;
    while (v == StoppingRule::Verdict::Continue && samples.size() < 5000) {
        samples.push_back(noisy(rng));
        v = rule.decide(samples, 1.0, 0.0);
    }
    EXPECT_EQ(v, StoppingRule::Verdict::NoiseSettled);
    EXPECT_GE(samples.size(), 64u);
    EXPECT_EQ(rule.decide({1, 2, 3}, 0.0, rule.max_seconds + 1), StoppingRule::Verdict::TimeCap);
}

// The interval of the median comes from order statistics: its width follows the spread of the
// middle of the sample and ignores how far the outliers lie.
TEST(StoppingRule, MedianIntervalUsesOrderStatisticsAndIgnoresOutliers) {
    EXPECT_TRUE(std::isinf(median_interval_half_width({1, 1, 1, 1, 1})));  // too few for an interval
    std::vector<double> ramp;
    for (int i = 1; i <= 100; ++i) ramp.push_back(100.0 + i);  // median 150.5
    // n = 100: ranks 50 -+ 9.8, i.e. the 40th and 61st values (140 and 161 after the shift).
    EXPECT_NEAR(median_interval_half_width(ramp), (161.0 - 140.0) / (2 * 150.5), 1e-12);
    auto outlier = ramp;
    outlier.back() = 1e9;  // one sample a million times too slow
    EXPECT_DOUBLE_EQ(median_interval_half_width(outlier), median_interval_half_width(ramp));
}

// With 1% noise and a few wild samples, the median is pinned to 0.5% after tens of samples, where
// the standard error of the mean (thrown off by the outliers) would need far more.
TEST(StoppingRule, MedianPinnedEndsRunsWithOutliersEarly) {
    StoppingRule rule;
    rule.min_seconds = 0;
    rule.max_median_interval = 0.005;
    std::mt19937 rng(11);
    std::normal_distribution<double> jitter(1.0, 0.01);
    std::vector<double> samples;
    StoppingRule::Verdict v = StoppingRule::Verdict::Continue;
    while (v == StoppingRule::Verdict::Continue && samples.size() < 5000) {
        samples.push_back(samples.size() % 10 == 3 ? 1.5 : jitter(rng));  // every tenth sample 50% slow
        v = rule.decide(samples, 1.0, 0.0);
    }
    EXPECT_EQ(v, StoppingRule::Verdict::MedianPinned);
    EXPECT_GE(samples.size(), 20u);
    EXPECT_LE(samples.size(), 80u);
    rule.max_median_interval = 0;  // off: the same samples run on to another rule
    EXPECT_EQ(rule.decide(std::vector<double>(samples.begin(), samples.begin() + 30), 1.0, 0.0), StoppingRule::Verdict::Continue);
}

// A throttled sample is taken again while no more have been dropped than kept (8 at least); a GPU
// that is always throttled still ends its timing with about half its samples dropped.
TEST(ThrottlePolicy, DropsThrottledSamplesWithinABound) {
    EXPECT_FALSE(kp::drop_throttled_sample(false, 0, 0));
    EXPECT_TRUE(kp::drop_throttled_sample(true, 0, 0));
    EXPECT_TRUE(kp::drop_throttled_sample(true, 7, 0));
    EXPECT_FALSE(kp::drop_throttled_sample(true, 8, 0));
    EXPECT_TRUE(kp::drop_throttled_sample(true, 20, 21));
    EXPECT_FALSE(kp::drop_throttled_sample(true, 21, 21));
    size_t dropped = 0, kept = 0;
    for (int s = 0; s < 1000; ++s) {  // always throttled
        if (kp::drop_throttled_sample(true, dropped, kept)) ++dropped;
        else ++kept;
    }
    EXPECT_EQ(dropped + kept, 1000u);
    EXPECT_LE(dropped, kept + 1);
    EXPECT_GE(kept, 499u);
}
