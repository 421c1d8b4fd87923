// kb_l1_047_Sum_reduction_over_a_dimension (KernelBench level 1, 47_Sum_reduction_over_a_dimension.py):
// torch.sum(x, dim=1, keepdim=True) for x of 128 x 4096 x 4095 fp32. The reduced dimension is the
// middle one, so each thread owns one output column (b, k) and walks down dim 1: neighbouring
// threads read neighbouring addresses on every step. Four partial sums keep the accumulation short.
#include <kernelpro/abi.h>

__global__ void sum_dim1(const float* __restrict__ x, float* __restrict__ y, int J, int K) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y;
    if (k >= K) return;
    const float* p = x + (long long)b * J * K + k;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int j = 0;
    for (; j + 4 <= J; j += 4) {
        s0 += p[(long long)(j + 0) * K];
        s1 += p[(long long)(j + 1) * K];
        s2 += p[(long long)(j + 2) * K];
        s3 += p[(long long)(j + 3) * K];
    }
    for (; j < J; ++j) s0 += p[(long long)j * K];
    y[(long long)b * K + k] = (s0 + s1) + (s2 + s3);
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 3 || inputs[0].dtype != KP_F32) return 1;
    int B = (int)inputs[0].shape[0], J = (int)inputs[0].shape[1], K = (int)inputs[0].shape[2];
    dim3 grid((unsigned)((K + 255) / 256), (unsigned)B);
    sum_dim1<<<grid, 256, 0, stream>>>((const float*)inputs[0].data, (float*)outputs[0].data, J, K);
    return (int)cudaGetLastError();
}
