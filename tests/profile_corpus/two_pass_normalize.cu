// FLAW: each block normalizes a 256 KiB chunk of x in two passes (sum, then scale by the sum); the
// resident blocks' chunks together (528 x 256 KiB) are twice the L2, so the second pass fetches
// its chunk from DRAM again: up to 1.5x the necessary DRAM traffic. Expect: dram_traffic_excess first (the fix: keep the
// chunk on chip between the passes, or fuse them with a per-block sum computed as it is loaded).
#include "kernelpro/abi.h"
constexpr int kChunk4 = 16384;  // float4 per block: 256 KiB
__global__ void normalize_two_pass(const float4* __restrict__ x, float4* __restrict__ y) {
    __shared__ float warp_sums[32];
    __shared__ float total;
    const float4* in = x + (long)blockIdx.x * kChunk4;
    float4* out = y + (long)blockIdx.x * kChunk4;
    float s = 0.f;
    for (int i = threadIdx.x; i < kChunk4; i += blockDim.x) {
        float4 v = in[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) t += warp_sums[w];
        total = 1.f / (1.f + fabsf(t));
    }
    __syncthreads();
    const float scale = total;
    for (int i = threadIdx.x; i < kChunk4; i += blockDim.x) {
        float4 v = in[i];
        out[i] = make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale);
    }
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    normalize_two_pass<<<(unsigned)(n4 / kChunk4), 512, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data);
    return 0;
}
