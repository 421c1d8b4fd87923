#include <gtest/gtest.h>

#include "llm/retry_policy.h"

using namespace kp::llm;
using namespace std::chrono_literals;

TEST(RetryPolicy, RetryableStatuses) {
    for (long s : {408L, 409L, 429L, 500L, 502L, 503L, 504L, 529L}) EXPECT_TRUE(is_retryable_status(s)) << s;
    for (long s : {200L, 400L, 401L, 403L, 404L, 413L, 422L}) EXPECT_FALSE(is_retryable_status(s)) << s;
}

TEST(RetryPolicy, ParsesRetryAfterSecondsAndDates) {
    EXPECT_EQ(parse_retry_after("7"), 7000ms);
    EXPECT_EQ(parse_retry_after(" 1.5 "), 1500ms);
    EXPECT_EQ(parse_retry_after("0"), 0ms);
    const auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
    EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now), 30000ms);
    EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), 0ms);  // in the past: now
    EXPECT_FALSE(parse_retry_after(""));
    EXPECT_FALSE(parse_retry_after("soon"));
    EXPECT_FALSE(parse_retry_after("5s"));
    EXPECT_FALSE(parse_retry_after("-3"));
}

TEST(RetryPolicy, BackoffGrowsWithJitterAndIsCapped) {
    RetryPolicy policy;
    policy.initial_backoff = 1000ms;
    policy.multiplier = 2.0;
    policy.max_backoff = 5000ms;
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 200; ++trial) {
        const auto d0 = backoff_delay(policy, 0, rng);
        const auto d2 = backoff_delay(policy, 2, rng);
        const auto d9 = backoff_delay(policy, 9, rng);
        EXPECT_GE(d0, 500ms);
        EXPECT_LE(d0, 1000ms);
        EXPECT_GE(d2, 2000ms);
        EXPECT_LE(d2, 4000ms);
        EXPECT_GE(d9, 2500ms);
        EXPECT_LE(d9, 5000ms);
    }
    // Jitter really varies.
    std::set<long long> seen;
    for (int i = 0; i < 20; ++i) seen.insert(backoff_delay(policy, 1, rng).count());
    EXPECT_GT(seen.size(), 5u);
}
