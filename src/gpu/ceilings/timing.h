// Times one repeated GPU operation with CUDA events: warm-up first (module load, cuBLAS handle and
// heuristics, first touch of memory stay out), then enough back-to-back repetitions to fill a
// minimum wall time, each between its own pair of events; the ceiling is taken from the median.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kp::ceilings {

struct TimingPolicy {
    int warmups = 3;
    int min_repetitions = 10;
    int max_repetitions = 500;
    double min_total_seconds = 0.3;  // long enough for several NVML clock samples
};

inline void check_cuda(cudaError_t status, const char* what) {
    if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// `launch` enqueues one repetition on `stream` and must check its own errors. Returns seconds per
// repetition, in the order run.
inline std::vector<double> time_repetitions(const std::function<void(cudaStream_t)>& launch, cudaStream_t stream,
                                            const TimingPolicy& policy, const std::function<void()>& on_timed_start = {}) {
    cudaEvent_t first = nullptr, last = nullptr;
    check_cuda(cudaEventCreate(&first), "cudaEventCreate");
    check_cuda(cudaEventCreate(&last), "cudaEventCreate");
    check_cuda(cudaEventRecord(first, stream), "cudaEventRecord");
    for (int i = 0; i < policy.warmups; ++i) launch(stream);
    check_cuda(cudaEventRecord(last, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(last), "warm-up");
    check_cuda(cudaGetLastError(), "warm-up launch");
    float warm_ms = 0;
    check_cuda(cudaEventElapsedTime(&warm_ms, first, last), "cudaEventElapsedTime");
    double one = std::max(1e-6, warm_ms / 1e3 / std::max(1, policy.warmups));
    int repetitions = static_cast<int>(std::ceil(policy.min_total_seconds / one));
    repetitions = std::clamp(repetitions, policy.min_repetitions, policy.max_repetitions);

    std::vector<cudaEvent_t> events(repetitions + 1);
    for (auto& e : events) check_cuda(cudaEventCreate(&e), "cudaEventCreate");
    if (on_timed_start) on_timed_start();
    // Back to back: event i closes repetition i-1 and opens repetition i.
    check_cuda(cudaEventRecord(events[0], stream), "cudaEventRecord");
    for (int i = 0; i < repetitions; ++i) {
        launch(stream);
        check_cuda(cudaEventRecord(events[i + 1], stream), "cudaEventRecord");
    }
    check_cuda(cudaEventSynchronize(events.back()), "timed repetitions");
    check_cuda(cudaGetLastError(), "timed launch");
    std::vector<double> seconds;
    for (int i = 0; i < repetitions; ++i) {
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, events[i], events[i + 1]), "cudaEventElapsedTime");
        seconds.push_back(ms / 1e3);
    }
    for (auto& e : events) cudaEventDestroy(e);
    cudaEventDestroy(first);
    cudaEventDestroy(last);
    return seconds;
}

inline double median_of(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

}  // namespace kp::ceilings
