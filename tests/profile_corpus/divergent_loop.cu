// FLAW: inside the loop, odd and even lanes take different branches (a lane-parity test that flips
// every iteration), so each branch runs with half the warp and the warp pays for both.
// Expect: warp_divergence first (the fix: make the choice per warp, or select arithmetically).
#include "kernelpro/abi.h"
__global__ void divergent_steps(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 v = x[i];
    float a = v.x + v.y, b = v.z + v.w;
    for (int k = 0; k < 64; ++k) {
        if ((threadIdx.x + k) & 1) {
#pragma unroll
            for (int j = 0; j < 8; ++j) a = fmaf(a, 0.999f, b);
        } else {
#pragma unroll
            for (int j = 0; j < 8; ++j) b = fmaf(b, a, -0.5f) * 0.5f;
        }
    }
    y[i] = make_float4(a, b, a - b, a + b);
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    divergent_steps<<<(unsigned)((n4 + 255) / 256), 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
