// FLAW: 4 blocks of 64 threads for 64 M elements: 4 of 132 SMs busy. Expect: small_grid_tail first.
#include "kernelpro/abi.h"
__global__ void copy_small_grid(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4 / 16;  // a sixteenth of the data, so a call stays short
    copy_small_grid<<<4, 64, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
