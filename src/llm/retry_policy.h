// When and how long to wait before asking an LLM endpoint again.
// Retried: HTTP 408, 409, 429, every 5xx, timeouts and connection errors. Never retried: other 4xx
// (a bad key or a bad request does not get better by asking again).
#pragma once

#include <chrono>
#include <optional>
#include <random>
#include <string>
#include <string_view>

namespace kp::llm {

struct RetryPolicy {
    int max_retries = 4;                                   // attempts = 1 + max_retries
    std::chrono::milliseconds initial_backoff{1000};
    double multiplier = 2.0;
    std::chrono::milliseconds max_backoff{60000};
    // A Retry-After longer than this ends the call instead of stalling the run.
    std::chrono::milliseconds max_retry_after{300000};
};

bool is_retryable_status(long http_status);

// Parses a Retry-After header: delta-seconds ("7", "1.5") or an HTTP date. nullopt if unreadable.
// `now` is a parameter so tests can pin it.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view header, std::chrono::system_clock::time_point now = std::chrono::system_clock::now());

// Back-off before retry number `retry` (0-based): exponential, capped, with "equal jitter" (half
// fixed, half random) so many workers hitting the same limit spread out but never retry instantly.
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry, std::mt19937_64& rng);

}  // namespace kp::llm
