// FP32 and FP64 FMA rates: a full wave of threads, each running independent FMA chains.
#include <algorithm>

#include "gpu/ceilings/benchmarks.h"

namespace kp::ceilings {

namespace {

constexpr int kChains = 8;   // independent FMAs per thread hide the pipeline latency
constexpr int kUnroll = 16;  // FFMA issues at one per cycle, so loop bookkeeping must be rare

// multiplier and addend arrive at run time, so the chains cannot be folded away.
template <typename T>
__global__ void fma_chain_kernel(T* sink, int iterations, T multiplier, T addend) {
    T value[kChains];
#pragma unroll
    for (int c = 0; c < kChains; ++c) value[c] = T(threadIdx.x + c) * T(1e-3);
#pragma unroll 1
    for (int i = 0; i < iterations; i += kUnroll) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int c = 0; c < kChains; ++c) value[c] = fma(value[c], multiplier, addend);
        }
    }
    T sum = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c) sum += value[c];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <typename T>
gpu::Ceiling measure_fma(BenchmarkContext& context, const char* name, int iterations) {
    gpu::Ceiling ceiling;
    ceiling.name = name;
    ceiling.unit = "flop/s";
    int threads = 256;
    int blocks_per_sm = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, fma_chain_kernel<T>, threads, 0),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    int blocks = std::max(1, blocks_per_sm) * std::max(1, context.device.sm_count);
    T* sink = nullptr;
    check_cuda(cudaMalloc(&sink, static_cast<std::size_t>(blocks) * threads * sizeof(T)), "cudaMalloc");
    double flops = 2.0 * kChains * iterations * static_cast<double>(blocks) * threads;
    ceiling.method = std::to_string(kChains) + " independent fma chains x " + std::to_string(iterations) +
                     " iterations, " + std::to_string(blocks) + " blocks of " + std::to_string(threads) +
                     " threads (" + std::to_string(blocks_per_sm) + " per SM)";
    try {
        time_into(context, ceiling, flops, [&](cudaStream_t stream) {
            fma_chain_kernel<T><<<blocks, threads, 0, stream>>>(sink, iterations, T(0.999999), T(1e-6));
        });
    } catch (...) {
        cudaFree(sink);
        throw;
    }
    cudaFree(sink);
    return ceiling;
}

}  // namespace

gpu::Ceiling measure_fp32_fma(BenchmarkContext& context) { return measure_fma<float>(context, "fp32_fma", 1 << 14); }
gpu::Ceiling measure_fp64_fma(BenchmarkContext& context) { return measure_fma<double>(context, "fp64_fma", 1 << 13); }

}  // namespace kp::ceilings
