// FLAW: a 7x7 box filter that reads all 49 neighbours of each output straight from global memory:
// coalesced loads that hit in L1/L2, but the kernel moves about 49x the input through the caches
// instead of loading a tile once into shared memory (or sliding a window through registers).
// Expect: missing_data_reuse first.
#include "kernelpro/abi.h"
__global__ void box7x7_global(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < 3 || c < 3 || r >= rows - 3 || c >= cols - 3) return;
    float s = 0.f;
#pragma unroll
    for (int dy = -3; dy <= 3; ++dy)
#pragma unroll
        for (int dx = -3; dx <= 3; ++dx) s += x[(long)(r + dy) * cols + (c + dx)];
    y[(long)r * cols + c] = s * (1.f / 49.f);
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
    box7x7_global<<<dim3(cols / 32, rows / 8), dim3(32, 8), 0, stream>>>((const float*)in[0].data, (float*)out[0].data, rows, cols);
    return 0;
}
