// FLAW: the call is 256 launches of a kernel that copies 528 KiB each (one block per SM, so the
// grid is not the problem): every kernel runs for about as long as a launch takes, so the GPU
// idles between them. Expect: launch_overhead first (the fix: one launch over the whole range).
// Judged from the call's timeline, which its recorded CUPTI reply carries and ncu's page does not
// (replayable = false in the manifest).
#include "kernelpro/abi.h"
__global__ void copy_slice(const float4* __restrict__ x, float4* __restrict__ y, long offset4) {
    long i = offset4 + blockIdx.x * (long)blockDim.x + threadIdx.x;
    y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    const int slices = 256, blocks = 132, slice4 = blocks * 256;  // 256 x 528 KiB: the first 132 MiB of y
    for (int s = 0; s < slices; ++s)
        copy_slice<<<blocks, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, (long)s * slice4);
    return 0;
}
