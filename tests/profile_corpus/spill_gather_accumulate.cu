// FLAW: each thread gathers 64 values from a 1 MiB window of x (coalesced, L2-resident) and
// multiply-adds each into 8 entries of a 32-entry per-thread array at indices known only at run
// time, so the array lives in local memory: every FFMA loads and stores it (LDL/STL). No matrix
// product anywhere, though the FFMAs far outnumber the DRAM bytes. Expect: register_spills first
// (the fix: accumulate in registers at compile-time indices, or in shared memory).
#include "kernelpro/abi.h"
__global__ void gather_accumulate(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc[32];
#pragma unroll
    for (int k = 0; k < 32; ++k) acc[k] = 0.f;
    const int warp = (int)(i >> 5);  // the same for the whole warp: the local accesses stay coalesced
    for (int j = 0; j < 64; ++j) {
        float v = x[(i + j * 4099L) & ((1 << 18) - 1)];
        int slot = (warp + j * 5) & 31;
#pragma unroll
        for (int m = 0; m < 8; ++m) acc[(slot + m) & 31] = fmaf(v, 0.5f + m, acc[(slot + m) & 31]);
    }
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 32; ++k) s += acc[k];
    y[i] = s;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1] / 32;  // 2 M threads x 512 multiply-adds: a few ms
    gather_accumulate<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
