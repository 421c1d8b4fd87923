// FLAW: a grid-stride float4 copy launched with a fixed 32 blocks of 256 threads: the loop is
// correct for any grid, but 100 of the 132 SMs get no block. Expect: small_grid_tail first
// (the fix: size the grid from the SM count, e.g. 132 x 8 blocks).
#include "kernelpro/abi.h"
__global__ void copy_grid_stride(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4 / 4;  // a quarter of the data, so a call stays short
    copy_grid_stride<<<32, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
