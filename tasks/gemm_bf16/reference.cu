// Reference GEMM: C = A @ B, row-major, bf16 in, fp32 accumulation, bf16 out.
// Textbook 16 x 16 shared-memory tiling on CUDA cores (no tensor cores): each thread computes
// one C element; tiles are converted to fp32 as they are staged.
#include <kernelpro/abi.h>
#include <cuda_bf16.h>

#define T 16

__global__ void gemm_reference(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C,
                               int64_t M, int64_t N, int64_t K) {
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int64_t row = (int64_t)blockIdx.y * T + threadIdx.y;
    int64_t col = (int64_t)blockIdx.x * T + threadIdx.x;
    float acc = 0.0f;
    for (int64_t k0 = 0; k0 < K; k0 += T) {
        int64_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? __bfloat162float(A[row * K + ka]) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? __bfloat162float(B[kb * N + col]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = __float2bfloat16_rn(acc);
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 2 || n_out != 1) return 1;
    if (in[0].dtype != KP_BF16 || in[1].dtype != KP_BF16 || out[0].dtype != KP_BF16) return 2;
    if (in[0].ndim != 2 || in[1].ndim != 2 || out[0].ndim != 2) return 3;
    if (in[0].shape[1] != in[1].shape[0]) return 4;
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != in[1].shape[1]) return 4;
    for (int i = 0; i < 3; ++i) {
        const kp_tensor& t = i < 2 ? in[i] : out[0];
        if (t.stride[1] != 1 || t.stride[0] != t.shape[1]) return 5;
    }
    if ((in[0].shape[0] + T - 1) / T > 65535) return 6;
    return 0;
}

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    return check_shapes(in, n_in, out, n_out);
}

KP_EXPORT void kp_teardown(void) {}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out,
                         cudaStream_t stream) {
    int bad = check_shapes(in, n_in, out, n_out);
    if (bad) return bad;
    int64_t M = in[0].shape[0], K = in[0].shape[1], N = in[1].shape[1];
    dim3 grid((unsigned)((N + T - 1) / T), (unsigned)((M + T - 1) / T));
    gemm_reference<<<grid, dim3(T, T), 0, stream>>>((const __nv_bfloat16*)in[0].data,
                                                    (const __nv_bfloat16*)in[1].data,
                                                    (__nv_bfloat16*)out[0].data, M, N, K);
    return (int)cudaGetLastError();
}
