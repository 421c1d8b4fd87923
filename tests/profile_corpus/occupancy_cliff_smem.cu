// FLAW: each 256-thread block stages a 40960-float (160 KiB) shared buffer but uses it only as a
// bounce buffer for a copy: one block fits per SM, 8 of 64 warp slots, too few to hide DRAM
// latency. Expect: occupancy_limit first (limited by shared memory; a 4 KiB buffer would do).
#include "kernelpro/abi.h"
constexpr int kStaged = 40960;
__global__ void copy_through_big_smem(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    extern __shared__ float4 stage[];
    int row = 0;  // cycles through the buffer's rows of blockDim.x float4s
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) {
        int slot = row * blockDim.x + threadIdx.x;
        stage[slot] = x[i];
        y[i] = stage[slot];
        row = row + 1 == kStaged / 4 / 256 ? 0 : row + 1;
    }
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4 / 4;  // a quarter of the data, so a call stays short
    const int bytes = kStaged * (int)sizeof(float);
    cudaFuncSetAttribute(copy_through_big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    copy_through_big_smem<<<132 * 4, 256, bytes, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
