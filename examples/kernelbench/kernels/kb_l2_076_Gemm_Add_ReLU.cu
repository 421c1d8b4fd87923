// kb_l2_076_Gemm_Add_ReLU (KernelBench level 2, 76_Gemm_Add_ReLU.py): y = relu(x @ gemm.weight^T + bias)
// for x of 1024 x 8192 and an 8192 x 8192 weight without its own bias, fp32: one tiled GEMM with the
// bias add and the ReLU fused into its store.
#include <kernelpro/abi.h>

#define BM 64
#define BN 64
#define BK 16

// C[m][n] = epilogue(sum_k A[m][k] * W[n][k] + bias[n], n): A is M x K and W is N x K, both row-major
// (nn.Linear's layout). 256 threads per 64 x 64 tile, each holding a 4 x 4 block of C in registers;
// 16-wide slices of A and W are staged through shared memory. Full fp32 (no TF32): the reference
// computes in IEEE fp32 and the tolerance is 1e-4.
template <class Epilogue>
__global__ void __launch_bounds__(256) gemm_nt(const float* __restrict__ A, const float* __restrict__ W,
                                               const float* __restrict__ bias, float* __restrict__ C, int M, int N, int K,
                                               Epilogue epilogue) {
    __shared__ float As[BK][BM + 4];
    __shared__ float Ws[BK][BN + 4];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int e = tid + i * 256, r = e / BK, c = e % BK, gk = k0 + c;
            const int gm = m0 + r, gn = n0 + r;
            As[c][r] = (gm < M && gk < K) ? A[(long long)gm * K + gk] : 0.0f;
            Ws[c][r] = (gn < N && gk < K) ? W[(long long)gn * K + gk] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            float a[4], w[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[kk][ty * 4 + i];
#pragma unroll
            for (int j = 0; j < 4; ++j) w[j] = Ws[kk][tx * 4 + j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], w[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int m = m0 + ty * 4 + i;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int n = n0 + tx * 4 + j;
            if (m < M && n < N) C[(long long)m * N + n] = epilogue(acc[i][j] + (bias ? bias[n] : 0.0f), n);
        }
    }
}

template <class Epilogue>
static void launch_gemm(const float* A, const float* W, const float* bias, float* C, int M, int N, int K, Epilogue e,
                        cudaStream_t stream) {
    dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));
    gemm_nt<<<grid, 256, 0, stream>>>(A, W, bias, C, M, N, K, e);
}

struct Relu {
    __device__ float operator()(float v, int) const { return fmaxf(v, 0.0f); }
};

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    // inputs: x, then the state_dict: bias (the module's own parameter comes first), gemm.weight
    if (n_inputs != 3 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[2].ndim != 2) return 1;
    int M = (int)inputs[0].shape[0], K = (int)inputs[0].shape[1], N = (int)inputs[2].shape[0];
    if (inputs[2].shape[1] != K || inputs[1].shape[0] != N) return 2;
    launch_gemm((const float*)inputs[0].data, (const float*)inputs[2].data, (const float*)inputs[1].data,
                (float*)outputs[0].data, M, N, K, Relu{}, stream);
    return (int)cudaGetLastError();
}
