// DRAM and L2 bandwidth, plus the random fills the other measurements use.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "gpu/ceilings/benchmarks.h"

namespace kp::ceilings {

namespace {

__device__ __forceinline__ std::uint32_t hash32(std::uint32_t x) {
    // A short integer mixer (xorshift-multiply); quality only needs to defeat zero detection.
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

__global__ void fill_words_kernel(std::uint32_t* data, std::size_t count, std::uint32_t seed) {
    std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride)
        data[i] = hash32(static_cast<std::uint32_t>(i) ^ hash32(seed)) | 1u;
}

template <typename T>
__global__ void fill_16bit_kernel(T* data, std::size_t count, std::uint32_t seed) {
    std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count; i += stride) {
        float unit = hash32(static_cast<std::uint32_t>(i) ^ hash32(seed)) * (1.0f / 4294967296.0f);
        data[i] = T(2.0f * unit - 1.0f);
    }
}

// Grid-stride copy with four 16-byte loads in flight per thread before the first store.
__global__ void copy_kernel(const float4* __restrict__ source, float4* __restrict__ destination, std::size_t count) {
    std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    for (; i + 3 * stride < count; i += 4 * stride) {
        float4 a = source[i], b = source[i + stride], c = source[i + 2 * stride], d = source[i + 3 * stride];
        destination[i] = a;
        destination[i + stride] = b;
        destination[i + 2 * stride] = c;
        destination[i + 3 * stride] = d;
    }
    for (; i < count; i += stride) destination[i] = source[i];
}

// Every pass reads the whole (L2-resident) buffer once. __ldcg caches in L2 only, so repeated
// reads cannot be served by L1. The sum is stored so the loads cannot be removed.
__global__ void l2_read_kernel(const float4* __restrict__ buffer, std::size_t count, int passes, float* sink) {
    std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    float sum0 = 0.f, sum1 = 0.f;
    for (int pass = 0; pass < passes; ++pass) {
#pragma unroll 4
        for (std::size_t i = first; i < count; i += stride) {
            float4 v = __ldcg(buffer + i);
            sum0 += v.x + v.y;
            sum1 += v.z + v.w;
        }
    }
    sink[first] = sum0 + sum1;
}

// One full wave: every SM holds as many 256-thread blocks as its thread slots allow.
int full_wave_blocks(const gpu::DeviceInfo& device, int threads_per_block) {
    int per_sm = std::max(1, device.max_threads_per_sm / threads_per_block);
    return std::max(1, device.sm_count) * per_sm;
}

}  // namespace

void fill_random_words(void* data, std::size_t count, std::uint32_t seed, cudaStream_t stream) {
    fill_words_kernel<<<1024, 256, 0, stream>>>(static_cast<std::uint32_t*>(data), count, seed);
    check_cuda(cudaGetLastError(), "fill_words_kernel");
}

void fill_random_16bit(void* data, std::size_t count, TensorPrecision precision, std::uint32_t seed, cudaStream_t stream) {
    if (precision == TensorPrecision::bf16)
        fill_16bit_kernel<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
    else
        fill_16bit_kernel<<<1024, 256, 0, stream>>>(static_cast<__half*>(data), count, seed);
    check_cuda(cudaGetLastError(), "fill_16bit_kernel");
}

gpu::Ceiling measure_dram_copy(BenchmarkContext& context) {
    gpu::Ceiling ceiling;
    ceiling.name = "dram_copy";
    ceiling.unit = "byte/s";
    // Each buffer is far larger than L2 (at least 16x), so every repetition streams from DRAM.
    std::size_t free_bytes = 0, total_bytes = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    std::size_t each = std::max<std::size_t>(std::size_t{2} << 30, 16 * static_cast<std::size_t>(context.device.l2_cache_bytes));
    each = std::min(each, free_bytes / 3);
    each = each / 16 * 16;
    void* source = nullptr;
    void* destination = nullptr;
    check_cuda(cudaMalloc(&source, each), "cudaMalloc");
    check_cuda(cudaMalloc(&destination, each), "cudaMalloc");
    try {
        fill_random_words(source, each / 4, 1, context.stream);
        int threads = 256;
        int blocks = full_wave_blocks(context.device, threads);
        std::size_t count = each / sizeof(float4);
        ceiling.method = "grid-stride float4 copy of " + std::to_string(each >> 20) +
                         " MiB, counting bytes read + written";
        time_into(context, ceiling, 2.0 * each, [&](cudaStream_t stream) {
            copy_kernel<<<blocks, threads, 0, stream>>>(static_cast<const float4*>(source),
                                                        static_cast<float4*>(destination), count);
        });
    } catch (...) {
        cudaFree(source);
        cudaFree(destination);
        throw;
    }
    cudaFree(source);
    cudaFree(destination);
    return ceiling;
}

gpu::Ceiling measure_l2_read(BenchmarkContext& context) {
    gpu::Ceiling ceiling;
    ceiling.name = "l2_read";
    ceiling.unit = "byte/s";
    int threads = 256;
    int blocks = full_wave_blocks(context.device, threads);
    std::size_t stride = static_cast<std::size_t>(blocks) * threads;
    // A third of L2 keeps the buffer resident even where L2 is split into two partitions; a whole
    // number of float4s per thread keeps every thread equally busy.
    std::size_t l2 = context.device.l2_cache_bytes > 0 ? context.device.l2_cache_bytes : (std::size_t{40} << 20);
    std::size_t per_thread = std::max<std::size_t>(1, l2 / 3 / (stride * sizeof(float4)));
    std::size_t count = stride * per_thread;
    std::size_t bytes = count * sizeof(float4);
    int passes = 256;
    void* buffer = nullptr;
    float* sink = nullptr;
    check_cuda(cudaMalloc(&buffer, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&sink, stride * sizeof(float)), "cudaMalloc");
    try {
        fill_random_words(buffer, bytes / 4, 2, context.stream);
        ceiling.method = "__ldcg float4 reads of a " + std::to_string(bytes >> 10) + " KiB buffer, " +
                         std::to_string(passes) + " passes per repetition";
        time_into(context, ceiling, static_cast<double>(bytes) * passes, [&](cudaStream_t stream) {
            l2_read_kernel<<<blocks, threads, 0, stream>>>(static_cast<const float4*>(buffer), count, passes, sink);
        });
    } catch (...) {
        cudaFree(buffer);
        cudaFree(sink);
        throw;
    }
    cudaFree(buffer);
    cudaFree(sink);
    return ceiling;
}

}  // namespace kp::ceilings
