// Reference sum: fixed-shape two-kernel reduction in fp64 (deterministic: no atomics).
// Kernel 1: 1024 blocks x 256 threads, grid-stride over x, block tree sum -> partial[block].
// Kernel 2: one block sums the 1024 partials and writes y[0] as fp32.
#include <kernelpro/abi.h>

#define REF_BLOCKS 1024
#define REF_THREADS 256

static __device__ double g_partial[REF_BLOCKS];   // scratch, fully rewritten every call

__global__ void sum_partials_reference(const float* x, int64_t n) {
    __shared__ double sh[REF_THREADS];
    int t = threadIdx.x;
    double acc = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * REF_THREADS + t; i < n; i += (int64_t)REF_BLOCKS * REF_THREADS)
        acc += (double)x[i];
    sh[t] = acc;
    __syncthreads();
    for (int s = REF_THREADS / 2; s > 0; s /= 2) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) g_partial[blockIdx.x] = sh[0];
}

__global__ void sum_final_reference(float* y) {
    __shared__ double sh[REF_BLOCKS];
    int t = threadIdx.x;
    sh[t] = g_partial[t];
    __syncthreads();
    for (int s = REF_BLOCKS / 2; s > 0; s /= 2) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) y[0] = (float)sh[0];
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 1 || in[0].stride[0] != 1) return 3;
    if (out[0].ndim != 1 || out[0].shape[0] != 1) return 4;
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
    sum_partials_reference<<<REF_BLOCKS, REF_THREADS, 0, stream>>>((const float*)in[0].data,
                                                                  in[0].shape[0]);
    sum_final_reference<<<1, REF_BLOCKS, 0, stream>>>((float*)out[0].data);
    return (int)cudaGetLastError();
}
