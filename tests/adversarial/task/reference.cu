// Reference row sum: one 256-thread block per row, fp64 accumulation and tree reduction.
#include <kernelpro/abi.h>

#define REF_THREADS 256

__global__ void rowsum_reference(const float* x, float* y, int64_t cols) {
    __shared__ double sh[REF_THREADS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    int t = threadIdx.x;
    double s = 0.0;
    for (int64_t c = t; c < cols; c += REF_THREADS) s += (double)row[c];
    sh[t] = s;
    __syncthreads();
    for (int k = REF_THREADS / 2; k > 0; k /= 2) {
        if (t < k) sh[t] += sh[t + k];
        __syncthreads();
    }
    if (t == 0) y[blockIdx.x] = (float)sh[0];
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 1 || out[0].shape[0] != in[0].shape[0]) return 3;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1] || out[0].stride[0] != 1) return 4;
    if (in[0].shape[0] > 2147483647LL) return 5;
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
    rowsum_reference<<<(unsigned)in[0].shape[0], REF_THREADS, 0, stream>>>(
        (const float*)in[0].data, (float*)out[0].data, in[0].shape[1]);
    return (int)cudaGetLastError();
}
