// FLAW: the header claims a TMA pipeline its code does not have. The writer's plan ("stage each
// tile with TMA, cp.async.bulk into shared memory, then store") was dropped for plain 16-byte loads,
// and the claim stayed; the kernel itself is a healthy coalesced copy near the DRAM roof.
// Expect: unbacked_hardware_claim (the SASS has no UTMALDG/UBLKCP), nothing else large.
#include "kernelpro/abi.h"
__global__ void tma_staged_copy(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n4 = in[0].shape[0] * in[0].shape[1] / 4;
    tma_staged_copy<<<132 * 16, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n4);
    return 0;
}
