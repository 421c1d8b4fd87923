#include <algorithm>

#include "gpu/ceilings/benchmarks.h"

namespace kp::ceilings {

void time_into(BenchmarkContext& context, gpu::Ceiling& ceiling, double work_per_repetition,
               const std::function<void(cudaStream_t)>& launch) {
    std::vector<double> seconds;
    try {
        seconds = time_repetitions(launch, context.stream, context.policy, [&] { context.sampler.start(); });
    } catch (...) {
        gpu::Ceiling discard;
        context.sampler.stop_into(discard);
        throw;
    }
    context.sampler.stop_into(ceiling);
    ceiling.repetitions = static_cast<int>(seconds.size());
    ceiling.work_per_repetition = work_per_repetition;
    ceiling.median_seconds = median_of(seconds);
    ceiling.min_seconds = *std::min_element(seconds.begin(), seconds.end());
    ceiling.max_seconds = *std::max_element(seconds.begin(), seconds.end());
    ceiling.value = ceiling.median_seconds > 0 ? work_per_repetition / ceiling.median_seconds : 0.0;
}

}  // namespace kp::ceilings
