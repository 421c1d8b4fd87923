// The ceiling measurements. Each returns a filled Ceiling, or throws std::runtime_error on a CUDA
// error (the caller turns that into a `skipped` entry and carries on with the next one).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

#include "gpu/ceilings.h"
#include "gpu/ceilings/clock_sampler.h"
#include "gpu/ceilings/timing.h"
#include "gpu/device_info.h"

namespace kp::ceilings {

struct BenchmarkContext {
    const gpu::DeviceInfo& device;
    ClockSampler& sampler;
    cudaStream_t stream;
    TimingPolicy policy;
};

// Times `launch`, samples clocks while the timed repetitions run, and fills value (work divided by
// the median time), median/min/max and the clock fields.
void time_into(BenchmarkContext& context, gpu::Ceiling& ceiling, double work_per_repetition,
               const std::function<void(cudaStream_t)>& launch);

gpu::Ceiling measure_dram_copy(BenchmarkContext& context);
gpu::Ceiling measure_l2_read(BenchmarkContext& context);
gpu::Ceiling measure_fp32_fma(BenchmarkContext& context);
gpu::Ceiling measure_fp64_fma(BenchmarkContext& context);

enum class TensorPrecision { bf16, fp16 };
gpu::Ceiling measure_tensor_gemm(BenchmarkContext& context, TensorPrecision precision);

// Fills `count` 16-bit values (bf16 or fp16) with uniform values in [-1, 1) from a hash of the index
// and seed: random-looking data, because matrix units run measurably faster on zeros.
void fill_random_16bit(void* data, std::size_t count, TensorPrecision precision, std::uint32_t seed, cudaStream_t stream);
// Fills `count` 32-bit words with hashed, non-zero bit patterns.
void fill_random_words(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream);

}  // namespace kp::ceilings
