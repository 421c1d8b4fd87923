// FLAW: a 2048^3 fp32 matrix product (on the top-left block of x) with one thread per output and
// plain FFMA: matmul-like work without tensor cores. Expect: matmul_without_tensor_cores first.
#include "kernelpro/abi.h"
__global__ void matmul_naive(const float* __restrict__ a, float* __restrict__ c, int n, int lda) {
    int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float s = 0.f;
    for (int k = 0; k < n; ++k) s += a[(long)row * lda + k] * a[(long)k * lda + col];
    c[(long)row * lda + col] = s;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    int n = 2048, lda = (int)in[0].shape[1];
    matmul_naive<<<dim3(n / 16, n / 16), dim3(16, 16), 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n, lda);
    return 0;
}
