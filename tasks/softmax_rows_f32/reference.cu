// Reference: row softmax, one 256-thread block per row, three plain passes over the row.
// Max in fp32 (exact), exp and sum in fp64, so the reference is more accurate than any fp32
// candidate needs to be.
#include <kernelpro/abi.h>

#define REF_THREADS 256

__global__ void softmax_rows_reference(const float* x, float* y, int64_t cols) {
    __shared__ float smax[REF_THREADS];
    __shared__ double ssum[REF_THREADS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    int t = threadIdx.x;

    float m = -INFINITY;
    for (int64_t c = t; c < cols; c += REF_THREADS) m = fmaxf(m, row[c]);
    smax[t] = m;
    __syncthreads();
    for (int s = REF_THREADS / 2; s > 0; s /= 2) {
        if (t < s) smax[t] = fmaxf(smax[t], smax[t + s]);
        __syncthreads();
    }
    double row_max = (double)smax[0];

    double sum = 0.0;
    for (int64_t c = t; c < cols; c += REF_THREADS) sum += exp((double)row[c] - row_max);
    ssum[t] = sum;
    __syncthreads();
    for (int s = REF_THREADS / 2; s > 0; s /= 2) {
        if (t < s) ssum[t] += ssum[t + s];
        __syncthreads();
    }
    double total = ssum[0];

    for (int64_t c = t; c < cols; c += REF_THREADS)
        out[c] = (float)(exp((double)row[c] - row_max) / total);
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2) return 3;
    if (in[0].shape[0] != out[0].shape[0] || in[0].shape[1] != out[0].shape[1]) return 4;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1]) return 5;
    if (out[0].stride[1] != 1 || out[0].stride[0] != out[0].shape[1]) return 5;
    if (in[0].shape[0] > 2147483647LL) return 6;
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
    int64_t rows = in[0].shape[0], cols = in[0].shape[1];
    softmax_rows_reference<<<(unsigned)rows, REF_THREADS, 0, stream>>>(
        (const float*)in[0].data, (float*)out[0].data, cols);
    return (int)cudaGetLastError();
}
