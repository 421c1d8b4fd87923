// FLAW: a naive transpose: the loads are coalesced along a row, but the stores walk down a column,
// so the 32 lanes of a warp write 32 different sectors, 4 useful bytes in each.
// Expect: uncoalesced_global_access first (the fix: transpose through a padded shared tile).
#include "kernelpro/abi.h"
__global__ void transpose_naive(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    y[(long)c * rows + r] = x[(long)r * cols + c];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
    transpose_naive<<<dim3(cols / 32, rows / 8), dim3(32, 8), 0, stream>>>((const float*)in[0].data, (float*)out[0].data, rows, cols);
    return 0;
}
