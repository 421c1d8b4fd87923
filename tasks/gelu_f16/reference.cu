// Reference GELU: one thread per element, computed in fp64 with erf, rounded to fp16.
#include <kernelpro/abi.h>
#include <cuda_fp16.h>

__global__ void gelu_reference(const __half* x, __half* y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = (double)__half2float(x[i]);
        double g = 0.5 * v * (1.0 + erf(v * 0.70710678118654752440));
        y[i] = __float2half_rn((float)g);
    }
}

static int contiguous(const kp_tensor& t) {
    int64_t s = 1;
    for (int d = t.ndim - 1; d >= 0; --d) {
        if (t.stride[d] != s) return 0;
        s *= t.shape[d];
    }
    return 1;
}

static int64_t numel(const kp_tensor& t) {
    int64_t n = 1;
    for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
    return n;
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F16 || out[0].dtype != KP_F16) return 2;
    if (!contiguous(in[0]) || !contiguous(out[0])) return 3;
    if (numel(in[0]) != numel(out[0])) return 4;
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
    int64_t n = numel(in[0]);
    gelu_reference<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(
        (const __half*)in[0].data, (__half*)out[0].data, n);
    return (int)cudaGetLastError();
}
