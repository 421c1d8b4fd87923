// FLAW: each warp walks a chain of 64 nodes (16-byte nodes, the next one chosen by the value just
// read): the first lane loads the node and broadcasts it, so a warp has one 16-byte load in flight
// and waits a full DRAM latency per step; memory stays nearly idle with every warp slot full.
// Expect: long_scoreboard_latency first (the fix: walk 32 chains per warp, one per lane, or
// prefetch several nodes ahead).
#include "kernelpro/abi.h"
__global__ void walk_chains(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x & 31;
    long node = (i >> 5) * 977;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int s = 0; s < 64; ++s) {
        float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
        if (lane == 0) v = x[node & (n4 - 1)];  // n4 is a power of two
        v.x = __shfl_sync(0xffffffffu, v.x, 0);
        v.y = __shfl_sync(0xffffffffu, v.y, 0);
        acc.x += v.x; acc.y += v.y;
        node += 1 + (__float_as_uint(v.x) & 0xfffffu);
    }
    acc.z = acc.x * lane;
    acc.w = acc.y * lane;
    y[i] = acc;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    walk_chains<<<132 * 8, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);  // one full wave
    return 0;
}
