// cuBLAS baseline (the task allows libraries = ["cublas"]): cublasGemmEx with bf16 A/B/C and
// fp32 compute. cuBLAS is column-major, so row-major C = A B is computed as the column-major
// product C^T = B^T A^T: pass B first, with m = N, n = M. The handle is created on the first
// call (a resource, not a precomputed result) and bound to the given stream on every call.
#include <kernelpro/abi.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

static cublasHandle_t g_handle = nullptr;

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 2 || n_out != 1) return 1;
    if (in[0].dtype != KP_BF16 || in[1].dtype != KP_BF16 || out[0].dtype != KP_BF16) return 2;
    if (in[0].ndim != 2 || in[1].ndim != 2 || out[0].ndim != 2) return 3;
    if (in[0].shape[1] != in[1].shape[0]) return 4;
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != in[1].shape[1]) return 4;
    for (int i = 0; i < 3; ++i) {
        const kp_tensor& t = i < 2 ? in[i] : out[0];
        if (t.stride[1] != 1 || t.stride[0] != t.shape[1]) return 5;
        if (t.shape[0] > 2147483647LL || t.shape[1] > 2147483647LL) return 6;
    }
    return 0;
}

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    return check_shapes(in, n_in, out, n_out);
}

KP_EXPORT void kp_teardown(void) {
    if (g_handle) cublasDestroy(g_handle);
    g_handle = nullptr;
}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out,
                         cudaStream_t stream) {
    int bad = check_shapes(in, n_in, out, n_out);
    if (bad) return bad;
    if (!g_handle && cublasCreate(&g_handle) != CUBLAS_STATUS_SUCCESS) return 100;
    if (cublasSetStream(g_handle, stream) != CUBLAS_STATUS_SUCCESS) return 101;
    int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[1];
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = cublasGemmEx(g_handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha,
                                     in[1].data, CUDA_R_16BF, N,   // B^T (col-major N x K)
                                     in[0].data, CUDA_R_16BF, K,   // A^T (col-major K x M)
                                     &beta, out[0].data, CUDA_R_16BF, N,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS) return 102;
    return (int)cudaGetLastError();
}
