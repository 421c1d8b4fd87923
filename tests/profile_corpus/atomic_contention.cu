// FLAW: every element adds into one of 4 global counters with atomicAdd: heavy contention.
// Expect: atomic_contention first.
#include "kernelpro/abi.h"
__global__ void contended_sum(const float* __restrict__ x, float* __restrict__ y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        atomicAdd(&y[i & 3], x[i]);
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1] / 16;  // a sixteenth: contention, not size, is the point
    cudaMemsetAsync(out[0].data, 0, 16, stream);
    contended_sum<<<132 * 8, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
