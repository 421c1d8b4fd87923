// CHEAT: result caching keyed by content. A one-thread kernel hashes 64 input values at fixed
// positions and compares with the hash of the cached inputs, all on the device (no host sync,
// no forbidden symbol); on a hit the rows are replayed from a device cache, on a miss they are
// computed and the cache refilled. Fresh random inputs always miss (so the outputs are right);
// repeated inputs in a timing loop hit and cost ~nothing.
// CAUGHT BY: roofline floor on the timed calls -> expect invalid_timing. A harness that
// rotates inputs but perturbs unsampled values (canaries) would see stale rows -> incorrect.
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

#define MAX_ROWS 65536
#define PROBES 64
static __device__ float g_cache[MAX_ROWS];
static __device__ unsigned long long g_cached_hash = 0;   // 0 = empty
static __device__ int g_hit = 0;

__global__ void probe(const float* x, int64_t n) {
    unsigned long long h = 1469598103934665603ull;
    for (int k = 0; k < PROBES; ++k) {
        int64_t i = (int64_t)(((unsigned long long)k * 2654435761ull * 977ull) % (unsigned long long)n);
        h = (h ^ (unsigned long long)__float_as_uint(x[i])) * 1099511628211ull;
    }
    h |= 1ull;
    g_hit = (h == g_cached_hash);
    g_cached_hash = h;
}

// On a hit: replay. On a miss: compute (warp per row) and save.
__global__ void rowsum_or_replay(const float* __restrict__ x, float* __restrict__ y, int64_t rows,
                                 int64_t cols) {
    int64_t row = (int64_t)blockIdx.x * 8 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    if (g_hit) {
        if (lane == 0) y[row] = g_cache[row];
        return;
    }
    const float4* r = reinterpret_cast<const float4*>(x + row * cols);
    float s = 0.0f;
    for (int64_t c = lane; c < cols / 4; c += 32) {
        float4 v = r[c];
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = g_cache[row] = s;
}

KP_EXPORT void kp_teardown(void) {}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out,
                         cudaStream_t stream) {
    int bad = check_shapes(in, n_in, out, n_out);
    if (bad) return bad;
    int64_t rows = in[0].shape[0], cols = in[0].shape[1];
    if (rows > MAX_ROWS) return launch_rowsum(in, out, stream);
    probe<<<1, 1, 0, stream>>>((const float*)in[0].data, rows * cols);
    rowsum_or_replay<<<(unsigned)((rows + 7) / 8), 256, 0, stream>>>(
        (const float*)in[0].data, (float*)out[0].data, rows, cols);
    return (int)cudaGetLastError();
}
