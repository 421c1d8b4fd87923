// FLAW: 4-byte loads and stores on contiguous data (LDG.E / STG.E), one element per thread.
// Expect: narrow_global_access first.
#include "kernelpro/abi.h"
__global__ void copy_scalar(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1];
    copy_scalar<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
