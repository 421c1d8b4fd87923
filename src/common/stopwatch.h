// Seconds of steady-clock time since a point: how every phase timing in kernelpro is taken.
#pragma once

#include <chrono>

namespace kp {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Back-to-back phases on one clock: each lap() is the seconds since the previous lap (or the start).
class PhaseClock {
public:
    explicit PhaseClock(std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now()) : last_(start) {}
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        const double seconds = std::chrono::duration<double>(now - last_).count();
        last_ = now;
        return seconds;
    }

private:
    std::chrono::steady_clock::time_point last_;
};

}  // namespace kp
