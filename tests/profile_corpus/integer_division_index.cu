// FLAW: a bias add over an NCHW tensor whose channel, row and column are computed per element with
// 64-bit division and modulo by run-time sizes: each is an emulated 64-bit division of dozens of
// integer instructions, five per element, for three float operations.
// Expect: math_pipe_saturation first (the ALU does index arithmetic; the fix: 32-bit indices, a
// grid over (n*c, h, w), or precomputed reciprocals).
#include "kernelpro/abi.h"
__device__ float position_bias(long e, long w_size, long hw, long channels) {
    long c = (e / hw) % channels, h = (e % hw) / w_size, w = e % w_size;
    return 0.01f * (float)c + 0.001f * (float)h - 0.0001f * (float)w;
}
__global__ void bias_add_nchw(const float4* __restrict__ x, float4* __restrict__ y, long total4, long w_size, long hw, long channels) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= total4) return;
    float4 v = x[i];
    long e = 4 * i;
    v.x += position_bias(e, w_size, hw, channels);
    v.y += position_bias(e + 1, w_size, hw, channels);
    v.z += position_bias(e + 2, w_size, hw, channels);
    v.w += position_bias(e + 3, w_size, hw, channels);
    y[i] = v;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    // x seen as an NCHW tensor of odd sizes (H x W = 251 x 257, C = 67): no shift can replace the division
    long total4 = in[0].shape[0] * in[0].shape[1] / 4, w_size = 257, hw = 251 * 257, channels = 67;
    bias_add_nchw<<<(unsigned)((total4 + 255) / 256), 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, total4, w_size,
                                                                        hw, channels);
    return 0;
}
