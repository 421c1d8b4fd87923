// HEALTHY, compute-bound: 1024 FFMA per element in four independent chains (float4 in, float4
// out, 64 FLOP per byte), so the FMA pipe runs near its peak doing only the work asked for.
// Expect: no finding above max_gain (a saturated FMA pipe with nothing to remove is the roof).
#include "kernelpro/abi.h"
__global__ void poly_fma(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n4) return;
    const float4 v = x[i];
    float4 a = v;
#pragma unroll 16
    for (int k = 0; k < 256; ++k) {
        a.x = fmaf(a.x, 0.999f, v.x);
        a.y = fmaf(a.y, 0.999f, v.y);
        a.z = fmaf(a.z, 0.999f, v.z);
        a.w = fmaf(a.w, 0.999f, v.w);
    }
    y[i] = a;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    poly_fma<<<(unsigned)((n4 + 255) / 256), 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
