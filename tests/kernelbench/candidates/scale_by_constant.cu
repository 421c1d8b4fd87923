// A kernel for tests/kernelbench/problems/9_ScaleByConstant.py: y = A * 2.5 (the constant forward
// argument written in). // kp:tune lines exercise the export's #define baking.
// kp:tune BLOCK=256,128
#include <kernelpro/abi.h>

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void scale_kernel(const float* a, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a[i] * 2.5f;
}

KP_EXPORT int kp_setup(const kp_tensor* inputs, int n_inputs, const kp_tensor* outputs, int n_outputs) {
    return n_inputs == 1 && n_outputs == 1 ? 0 : 1;
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    long n = inputs[0].shape[0] * inputs[0].shape[1];
    scale_kernel<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>((const float*)inputs[0].data, (float*)outputs[0].data, n);
    return (int)cudaGetLastError();
}
