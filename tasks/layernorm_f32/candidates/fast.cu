// LayerNorm, single read of x: one 256-thread block per row holds the row in registers
// (16-byte loads, up to 16 float4 per thread: rows of up to 16384 columns), computes the mean,
// then the variance of (x - mean) from the registers (exact two-pass numerics, one DRAM read),
// then writes y once. Falls back to a three-pass kernel for other shapes.
#include <kernelpro/abi.h>
#include <stdint.h>

#define THREADS 256
#define NWARPS (THREADS / 32)
#define LN_EPS 1e-5f

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Every thread gets the block total. Each call needs its own `sh` (no barrier after reading).
__device__ __forceinline__ float block_sum(float v, float* sh) {
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = ((threadIdx.x & 31) < NWARPS) ? sh[threadIdx.x & 31] : 0.0f;
    return warp_sum(v);
}

template <int ITEMS>
__global__ void __launch_bounds__(THREADS) layernorm_registers(const float4* __restrict__ x,
                                                               const float4* __restrict__ gamma,
                                                               const float4* __restrict__ beta,
                                                               float4* __restrict__ y,
                                                               int nvec) {
    __shared__ float sh_a[NWARPS];
    __shared__ float sh_b[NWARPS];
    const float4* row = x + (int64_t)blockIdx.x * nvec;
    float4* out = y + (int64_t)blockIdx.x * nvec;
    const float n = (float)nvec * 4.0f;

    float4 v[ITEMS];
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        int c = threadIdx.x + i * THREADS;
        v[i] = c < nvec ? __ldcs(row + c) : make_float4(0.f, 0.f, 0.f, 0.f);
        s += (v[i].x + v[i].y) + (v[i].z + v[i].w);
    }
    float mean = block_sum(s, sh_a) / n;

    float q = 0.0f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        int c = threadIdx.x + i * THREADS;
        if (c < nvec) {
            float a = v[i].x - mean, b = v[i].y - mean, d = v[i].z - mean, e = v[i].w - mean;
            q += (a * a + b * b) + (d * d + e * e);
        }
    }
    float var = block_sum(q, sh_b) / n;
    float rstd = rsqrtf(var + LN_EPS);

#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        int c = threadIdx.x + i * THREADS;
        if (c < nvec) {
            float4 g = __ldg(gamma + c), b = __ldg(beta + c), r;
            r.x = (v[i].x - mean) * rstd * g.x + b.x;
            r.y = (v[i].y - mean) * rstd * g.y + b.y;
            r.z = (v[i].z - mean) * rstd * g.z + b.z;
            r.w = (v[i].w - mean) * rstd * g.w + b.w;
            __stcs(out + c, r);
        }
    }
}

__global__ void __launch_bounds__(THREADS) layernorm_generic(const float* __restrict__ x,
                                                             const float* __restrict__ gamma,
                                                             const float* __restrict__ beta,
                                                             float* __restrict__ y, int64_t cols) {
    __shared__ float sh_a[NWARPS];
    __shared__ float sh_b[NWARPS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) s += row[c];
    float mean = block_sum(s, sh_a) / (float)cols;
    float q = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) {
        float d = row[c] - mean;
        q += d * d;
    }
    float rstd = rsqrtf(block_sum(q, sh_b) / (float)cols + LN_EPS);
    for (int64_t c = threadIdx.x; c < cols; c += THREADS)
        out[c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
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
    int64_t rows = in[0].shape[0], cols = in[0].shape[1];
    const float* x = (const float*)in[0].data;
    const float* g = (const float*)in[1].data;
    const float* b = (const float*)in[2].data;
    float* y = (float*)out[0].data;
    bool vec_ok = cols % 4 == 0 && (((uintptr_t)x | (uintptr_t)g | (uintptr_t)b | (uintptr_t)y) % 16 == 0);
    int64_t nvec = cols / 4, items = (nvec + THREADS - 1) / THREADS;
    unsigned grid = (unsigned)rows;
#define LN_LAUNCH(N) layernorm_registers<N><<<grid, THREADS, 0, stream>>>( \
        (const float4*)x, (const float4*)g, (const float4*)b, (float4*)y, (int)nvec)
    if (vec_ok && items <= 1) LN_LAUNCH(1);
    else if (vec_ok && items <= 2) LN_LAUNCH(2);
    else if (vec_ok && items <= 4) LN_LAUNCH(4);
    else if (vec_ok && items <= 8) LN_LAUNCH(8);
    else if (vec_ok && items <= 16) LN_LAUNCH(16);
    else layernorm_generic<<<grid, THREADS, 0, stream>>>(x, g, b, y, cols);
#undef LN_LAUNCH
    return (int)cudaGetLastError();
}
