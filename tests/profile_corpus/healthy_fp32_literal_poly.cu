// HEALTHY, the twin of fp64_promoted_literal: the same polynomial step with a float literal (0.1f),
// so it is one FFMA with no conversion; four chains per thread (float4 in and out, 128 steps) keep
// the FMA pipe near its peak doing only the work asked for. Expect: no finding above max_gain.
#include "kernelpro/abi.h"
__global__ void literal_poly(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n4) return;
    const float4 v = x[i];
    float4 acc = make_float4(1.f, 1.f, 1.f, 1.f);
#pragma unroll 8
    for (int k = 0; k < 128; ++k) {
        acc.x = acc.x * v.x + 0.1f;
        acc.y = acc.y * v.y + 0.1f;
        acc.z = acc.z * v.z + 0.1f;
        acc.w = acc.w * v.w + 0.1f;
    }
    y[i] = acc;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    literal_poly<<<(unsigned)((n4 + 255) / 256), 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
