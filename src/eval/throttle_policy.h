// Whether a timed sample taken while the GPU slowed itself (a power cap, a thermal or hardware
// slowdown: gpu::clock_events_limit_performance) is dropped and taken again. Dropping is bounded
// (at most as many dropped as kept, and 8 at least) so that a GPU that never runs unthrottled still
// ends its timing; past the bound the samples are kept and counted, and the report says so.
#pragma once

#include <algorithm>
#include <cstddef>

namespace kp {

inline bool drop_throttled_sample(bool slowed, std::size_t dropped_so_far, std::size_t kept_so_far) {
    return slowed && dropped_so_far < std::max<std::size_t>(8, kept_so_far);
}

}  // namespace kp
