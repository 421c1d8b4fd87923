// kb_l1_049_Max_reduction_over_a_dimension (KernelBench level 1, 49_Max_reduction_over_a_dimension.py):
// torch.max(x, dim=1)[0] for x of 128 x 4096 x 4095 fp32: one thread per output column (b, k),
// walking down dim 1 with coalesced reads; the maximum is exact in any order.
#include <kernelpro/abi.h>
#include <math.h>

__global__ void max_dim1(const float* __restrict__ x, float* __restrict__ y, int J, int K) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int b = blockIdx.y;
    if (k >= K) return;
    const float* p = x + (long long)b * J * K + k;
    float m0 = -INFINITY, m1 = -INFINITY;
    int j = 0;
    for (; j + 2 <= J; j += 2) {
        m0 = fmaxf(m0, p[(long long)j * K]);
        m1 = fmaxf(m1, p[(long long)(j + 1) * K]);
    }
    for (; j < J; ++j) m0 = fmaxf(m0, p[(long long)j * K]);
    y[(long long)b * K + k] = fmaxf(m0, m1);
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 3 || inputs[0].dtype != KP_F32) return 1;
    int B = (int)inputs[0].shape[0], J = (int)inputs[0].shape[1], K = (int)inputs[0].shape[2];
    dim3 grid((unsigned)((K + 255) / 256), (unsigned)B);
    max_dim1<<<grid, 256, 0, stream>>>((const float*)inputs[0].data, (float*)outputs[0].data, J, K);
    return (int)cudaGetLastError();
}
