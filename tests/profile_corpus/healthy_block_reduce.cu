// HEALTHY, near the atomic tool's limit: a sum of x with 16-byte grid-stride loads, a warp-shuffle
// and shared-memory reduction per block, and one global atomicAdd per block (1056 in all, no
// contention worth a finding). Memory-bound near the DRAM roof. Expect: no finding above max_gain.
#include "kernelpro/abi.h"
__global__ void block_reduce_sum(const float4* __restrict__ x, float* __restrict__ y, long n4) {
    __shared__ float warp_sums[32];
    float s = 0.f;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < (blockDim.x >> 5) ? warp_sums[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) atomicAdd(y, s);
    }
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    cudaMemsetAsync(out[0].data, 0, sizeof(float), stream);
    block_reduce_sum<<<132 * 8, 256, 0, stream>>>((const float4*)in[0].data, (float*)out[0].data, n4);
    return 0;
}
