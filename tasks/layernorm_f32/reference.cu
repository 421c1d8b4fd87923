// Reference LayerNorm: one 256-thread block per row, plain passes, fp64 sums:
// mean, then the variance of (x - mean), then the affine output.
#include <kernelpro/abi.h>

#define REF_THREADS 256
#define LN_EPS 1e-5

static __device__ double block_sum_double(double v, double* sh) {
    int t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (int s = REF_THREADS / 2; s > 0; s /= 2) {
        if (t < s) sh[t] += sh[t + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();   // sh is reused by the next call
    return r;
}

__global__ void layernorm_reference(const float* x, const float* gamma, const float* beta,
                                    float* y, int64_t cols) {
    __shared__ double sh[REF_THREADS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    int t = threadIdx.x;

    double sum = 0.0;
    for (int64_t c = t; c < cols; c += REF_THREADS) sum += (double)row[c];
    double mean = block_sum_double(sum, sh) / (double)cols;

    double sq = 0.0;
    for (int64_t c = t; c < cols; c += REF_THREADS) {
        double d = (double)row[c] - mean;
        sq += d * d;
    }
    double var = block_sum_double(sq, sh) / (double)cols;
    double rstd = 1.0 / sqrt(var + LN_EPS);

    for (int64_t c = t; c < cols; c += REF_THREADS)
        out[c] = (float)(((double)row[c] - mean) * rstd * (double)gamma[c] + (double)beta[c]);
}

static int contiguous(const kp_tensor& t) {
    int64_t s = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
        if (t.stride[d] != s) return 0;
        s *= t.shape[d];
    }
    return 1;
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 3 || n_out != 1) return 1;
    for (int i = 0; i < 3; ++i) if (in[i].dtype != KP_F32 || !contiguous(in[i])) return 2;
    if (out[0].dtype != KP_F32 || !contiguous(out[0])) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2 || in[1].ndim != 1 || in[2].ndim != 1) return 3;
    int64_t cols = in[0].shape[1];
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != cols) return 4;
    if (in[1].shape[0] != cols || in[2].shape[0] != cols) return 4;
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
    layernorm_reference<<<(unsigned)in[0].shape[0], REF_THREADS, 0, stream>>>(
        (const float*)in[0].data, (const float*)in[1].data, (const float*)in[2].data,
        (float*)out[0].data, in[0].shape[1]);
    return (int)cudaGetLastError();
}
