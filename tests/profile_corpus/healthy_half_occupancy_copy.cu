// HEALTHY, at the occupancy tool's limit: the twin of occupancy_cliff_smem with a 48 KiB staging
// buffer, so four 256-thread blocks fit per SM: 32 of 64 warp slots (50%), enough with 16-byte
// accesses to keep enough bytes in flight for the DRAM roof. Expect: no finding above max_gain.
#include "kernelpro/abi.h"
constexpr int kStaged = 12288;
__global__ void copy_through_smem(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
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
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    copy_through_smem<<<132 * 4, 256, kStaged * sizeof(float), stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
