// FLAW: row sums through a 32x32 shared tile: the tile is loaded coalesced, then lane t of the
// first warp sums row t, reading tile[t][k]: all 32 lanes hit the same bank (a 32-way conflict on
// every load of the reduction). Expect: shared_bank_conflicts first (the fix is tile[32][33]).
#include "kernelpro/abi.h"
__global__ void row_sums_conflicted(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    __shared__ float tile[32][32];
    const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 32;
    for (int k = 0; k < 32; k += 8) tile[threadIdx.y + k][threadIdx.x] = x[(long)(r0 + threadIdx.y + k) * cols + c0 + threadIdx.x];
    __syncthreads();
    if (threadIdx.y != 0) return;
    float s = 0.f;
#pragma unroll 1
    for (int k = 0; k < 32; ++k) s += tile[threadIdx.x][k];  // one 32-way conflicted LDS per step
    // One partial sum per row and tile column, stored so that neighbouring lanes write neighbours.
    y[(long)blockIdx.x * rows + r0 + threadIdx.x] = s;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
    row_sums_conflicted<<<dim3(cols / 32, rows / 32), dim3(32, 8), 0, stream>>>((const float*)in[0].data, (float*)out[0].data, rows, cols);
    return 0;
}
