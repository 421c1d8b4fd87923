// FLAW: a 3-point stencil through a shared tile: the barrier after the tile is loaded is needed,
// but the loop then only reads the tile and still calls __syncthreads() on every step, so warps
// keep waiting for the slowest one of the block. Expect: barrier_stalls first.
#include "kernelpro/abi.h"
__global__ void stencil_redundant_barriers(const float* __restrict__ x, float* __restrict__ y, long n) {
    __shared__ float tile[256 + 2];
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    tile[threadIdx.x + 1] = x[i];
    if (threadIdx.x == 0) tile[0] = i > 0 ? x[i - 1] : 0.f;
    if (threadIdx.x == blockDim.x - 1) tile[blockDim.x + 1] = i + 1 < n ? x[i + 1] : 0.f;
    __syncthreads();
    float acc = 0.f;
    for (int k = 0; k < 32; ++k) {
        acc = fmaf(acc, 0.5f, tile[threadIdx.x + (k % 3)]);
        __syncthreads();  // orders nothing: the tile is read-only here
    }
    y[i] = acc;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1] / 4;  // a quarter of the data, so a call stays short
    stencil_redundant_barriers<<<(unsigned)(n / 256), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
