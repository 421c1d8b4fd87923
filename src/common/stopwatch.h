// Seconds of steady-clock time since a point: how every phase timing in kernelpro is taken.
#pragma once

#include <chrono>

namespace kp {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kp
