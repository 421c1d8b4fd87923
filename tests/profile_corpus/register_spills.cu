// FLAW: a 64-entry per-thread array indexed at run time under __launch_bounds__(256, 8) (at most
// 32 registers): the array lives in local memory and the compiler spills. Expect: register_spills
// first.
#include "kernelpro/abi.h"
__global__ void __launch_bounds__(256, 8) spill_heavy(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc[64];
    float v = x[i];
#pragma unroll
    for (int k = 0; k < 64; ++k) acc[k] = v * (k + 1) + k;
    float s = 0.f;
    for (int k = 0; k < 64; ++k) s += acc[(k * 7 + (int)(i & 63)) & 63] * acc[(k * 13 + 5) & 63];
    y[i] = s;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1];
    spill_heavy<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
