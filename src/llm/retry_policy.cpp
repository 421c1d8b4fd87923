#include "llm/retry_policy.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace kp::llm {

bool is_retryable_status(long status) {
    return status == 408 || status == 409 || status == 429 || (status >= 500 && status <= 599);
}

std::optional<std::chrono::milliseconds> parse_retry_after(std::string_view header,
                                                           std::chrono::system_clock::time_point now) {
    std::string text(header);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(0, 1);
    if (text.empty()) return std::nullopt;

    if (std::isdigit(static_cast<unsigned char>(text.front()))) {
        std::size_t used = 0;
        double seconds = 0;
        try {
            seconds = std::stod(text, &used);
        } catch (...) {
            return std::nullopt;
        }
        if (used != text.size() || seconds < 0 || !std::isfinite(seconds)) return std::nullopt;
        return std::chrono::milliseconds(static_cast<long long>(std::llround(seconds * 1000.0)));
    }

    // HTTP date, IMF-fixdate form: "Wed, 21 Oct 2015 07:28:00 GMT".
    std::tm tm{};
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    in >> std::get_time(&tm, "%a, %d %b %Y %H:%M:%S");
    if (in.fail()) return std::nullopt;
    const auto when = std::chrono::system_clock::from_time_t(timegm(&tm));
    const auto delta = std::chrono::duration_cast<std::chrono::milliseconds>(when - now);
    return std::max(delta, std::chrono::milliseconds(0));
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int retry, std::mt19937_64& rng) {
    const double initial = static_cast<double>(policy.initial_backoff.count());
    const double cap = static_cast<double>(policy.max_backoff.count());
    const double full = std::min(cap, initial * std::pow(std::max(policy.multiplier, 1.0), std::max(retry, 0)));
    std::uniform_real_distribution<double> jitter(0.0, full / 2.0);
    return std::chrono::milliseconds(static_cast<long long>(full / 2.0 + jitter(rng)));
}

}  // namespace kp::llm
