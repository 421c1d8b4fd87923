// FLAW: fp32 data, but the arithmetic is done in double (a polynomial of 64 steps in fp64).
// Expect: fp64_or_unfused_math first.
#include "kernelpro/abi.h"
__global__ void fp64_polynomial(const float* __restrict__ x, float* __restrict__ y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        double v = x[i], acc = 1.0;
        for (int k = 0; k < 64; ++k) acc = acc * v + 1.0 / (k + 1);
        y[i] = (float)acc;
    }
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1];
    fp64_polynomial<<<132 * 8, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
