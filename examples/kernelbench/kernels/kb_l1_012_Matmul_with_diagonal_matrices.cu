// kb_l1_012_Matmul_with_diagonal_matrices (KernelBench level 1, 12_Matmul_with_diagonal_matrices_.py):
// diag(A) @ B = A.unsqueeze(1) * B for A of 4096 and B of 4096 x 4096 fp32: row i of B scaled by
// A[i]. One block per row, 16-byte loads; A[i] is read once per block.
#include <kernelpro/abi.h>

__global__ void scale_rows(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int cols) {
    const long long row = blockIdx.x;
    const float s = a[row];
    const float4* in = reinterpret_cast<const float4*>(b + row * cols);
    float4* out = reinterpret_cast<float4*>(c + row * cols);
    for (int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
        float4 v = in[i];
        out[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
    }
    for (int i = (cols / 4) * 4 + threadIdx.x; i < cols; i += blockDim.x) c[row * cols + i] = b[row * cols + i] * s;
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (n_inputs != 2 || n_outputs != 1 || inputs[1].ndim != 2) return 1;
    int rows = (int)inputs[1].shape[0], cols = (int)inputs[1].shape[1];
    if (cols % 4) return 2;
    scale_rows<<<(unsigned)rows, 256, 0, stream>>>((const float*)inputs[0].data, (const float*)inputs[1].data,
                                                   (float*)outputs[0].data, cols);
    return (int)cudaGetLastError();
}
