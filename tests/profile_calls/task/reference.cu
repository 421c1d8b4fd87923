// Reference sum: per-block fp64 tree sums into a scratch array, then one block adds them up.
#include <kernelpro/abi.h>

#define REF_BLOCKS 1024
#define REF_THREADS 256

static __device__ double g_partial[REF_BLOCKS];

__global__ void partial_sums_reference(const float* x, int64_t n) {
    __shared__ double sh[REF_THREADS];
    int t = threadIdx.x;
    double acc = 0.0;
    for (int64_t i = (int64_t)blockIdx.x * REF_THREADS + t; i < n; i += (int64_t)REF_BLOCKS * REF_THREADS) acc += (double)x[i];
    sh[t] = acc;
    __syncthreads();
    for (int s = REF_THREADS / 2; s > 0; s /= 2) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    if (t == 0) g_partial[blockIdx.x] = sh[0];
}

__global__ void final_sum_reference(float* y) {
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

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    return (n_in == 1 && n_out == 1 && in[0].dtype == KP_F32 && out[0].dtype == KP_F32) ? 0 : 1;
}

KP_EXPORT void kp_teardown(void) {}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    partial_sums_reference<<<REF_BLOCKS, REF_THREADS, 0, stream>>>((const float*)in[0].data, in[0].shape[0]);
    final_sum_reference<<<1, REF_BLOCKS, 0, stream>>>((float*)out[0].data);
    return (int)cudaGetLastError();
}
