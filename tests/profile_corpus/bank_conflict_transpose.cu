// FLAW: transpose through a 32x32 shared tile without padding: the column read is a 32-way bank
// conflict. Expect: shared_bank_conflicts first.
#include "kernelpro/abi.h"
__global__ void transpose_conflicted(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    __shared__ float tile[32][32];
    int c = blockIdx.x * 32 + threadIdx.x;
    for (int k = 0; k < 32; k += 8) {
        int r = blockIdx.y * 32 + threadIdx.y + k;
        tile[threadIdx.y + k][threadIdx.x] = x[(long)r * cols + c];
    }
    __syncthreads();
    int out_c = blockIdx.y * 32 + threadIdx.x;
    for (int k = 0; k < 32; k += 8) {
        int out_r = blockIdx.x * 32 + threadIdx.y + k;
        y[(long)out_r * rows + out_c] = tile[threadIdx.x][threadIdx.y + k];
    }
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    int rows = (int)in[0].shape[0], cols = (int)in[0].shape[1];
    transpose_conflicted<<<dim3(cols / 32, rows / 32), dim3(32, 8), 0, stream>>>((const float*)in[0].data, (float*)out[0].data, rows, cols);
    return 0;
}
