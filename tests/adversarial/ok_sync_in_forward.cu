// HONEST (expect ok): the warp-per-row sum, but kp_forward waits for its own kernel
// (cudaStreamSynchronize) before returning, as a library with a host-side step would. A queued
// timing start cannot hold the stream across such a call: the evaluator must notice (the hold
// runs out), fall back to idle starts for every side, and still time it correctly.
#include <kernelpro/abi.h>
#include <stdint.h>

// ---- honest building blocks (the same in every file of the suite) ----
// One warp per row, 16-byte loads, shuffle reduction.
__global__ void rowsum_warp(const float* __restrict__ x, float* __restrict__ y, int64_t rows,
                            int64_t cols) {
    int64_t row = (int64_t)blockIdx.x * 8 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;   // whole warp leaves together
    const float4* r = reinterpret_cast<const float4*>(x + row * cols);
    float s = 0.0f;
    for (int64_t c = lane; c < cols / 4; c += 32) {
        float4 v = r[c];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = s;
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 1 || out[0].shape[0] != in[0].shape[0]) return 3;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1] || out[0].stride[0] != 1) return 4;
    if (in[0].shape[1] % 4 != 0 || in[0].shape[0] > 2147483647LL) return 5;
    return 0;
}

// Honest launch of the whole computation on `stream`.
static int launch_rowsum(const kp_tensor* in, kp_tensor* out, cudaStream_t stream) {
    int64_t rows = in[0].shape[0], cols = in[0].shape[1];
    rowsum_warp<<<(unsigned)((rows + 7) / 8), 256, 0, stream>>>((const float*)in[0].data,
                                                                (float*)out[0].data, rows, cols);
    return (int)cudaGetLastError();
}

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    return check_shapes(in, n_in, out, n_out);
}
// ---- end of honest building blocks ----

KP_EXPORT void kp_teardown(void) {}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out,
                         cudaStream_t stream) {
    int bad = check_shapes(in, n_in, out, n_out);
    if (bad) return bad;
    int rc = launch_rowsum(in, out, stream);
    if (rc) return rc;
    return (int)cudaStreamSynchronize(stream);
}
