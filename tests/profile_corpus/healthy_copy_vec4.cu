// HEALTHY: 16-byte loads and stores, coalesced, full grid, memory-bound near the DRAM roof.
// Expect: no finding with a large estimated gain.
#include "kernelpro/abi.h"
__global__ void copy_vec4(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    copy_vec4<<<132 * 16, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
