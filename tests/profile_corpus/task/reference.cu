// Reference of the corpus task: y = x.
#include "kernelpro/abi.h"
__global__ void corpus_reference(const float* x, float* y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) y[i] = x[i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1];
    corpus_reference<<<132 * 8, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
