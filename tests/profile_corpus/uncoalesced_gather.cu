// FLAW: neighbouring threads read addresses 33 floats apart (stride-33 gather): 32 sectors per
// request where 4 would do. Expect: uncoalesced_global_access first.
#include "kernelpro/abi.h"
__global__ void gather_stride33(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[(i * 33) % n];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1];
    gather_stride33<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
