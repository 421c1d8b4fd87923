// Row softmax, single read of x: one 256-thread block per row keeps the whole row in registers
// (16-byte loads, up to 16 float4 per thread, so rows of up to 16384 columns), reduces max and
// sum with warp shuffles, then writes y once. Falls back to a plain three-pass kernel for rows
// that are too long or not a multiple of 4 columns.
#include <kernelpro/abi.h>
#include <stdint.h>

#define THREADS 256
#define NWARPS (THREADS / 32)

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// All threads of the block get the result. `sh` must not be reused by the caller afterwards.
__device__ __forceinline__ float block_max(float v, float* sh) {
    v = warp_max(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = ((threadIdx.x & 31) < NWARPS) ? sh[threadIdx.x & 31] : -INFINITY;
    return warp_max(v);
}
__device__ __forceinline__ float block_sum(float v, float* sh) {
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = ((threadIdx.x & 31) < NWARPS) ? sh[threadIdx.x & 31] : 0.0f;
    return warp_sum(v);
}

template <int ITEMS>
__global__ void __launch_bounds__(THREADS) softmax_rows_registers(const float4* __restrict__ x,
                                                                  float4* __restrict__ y,
                                                                  int nvec) {
    __shared__ float sh_max[NWARPS];
    __shared__ float sh_sum[NWARPS];
    const float4* row = x + (int64_t)blockIdx.x * nvec;
    float4* out = y + (int64_t)blockIdx.x * nvec;

    float4 v[ITEMS];
    float m = -INFINITY;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        int c = threadIdx.x + i * THREADS;
        if (c < nvec) {
            v[i] = __ldcs(row + c);
        } else {
            v[i] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
        m = fmaxf(m, fmaxf(fmaxf(v[i].x, v[i].y), fmaxf(v[i].z, v[i].w)));
    }
    m = block_max(m, sh_max);

    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        v[i].x = expf(v[i].x - m);   // padding lanes: expf(-inf) = 0
        v[i].y = expf(v[i].y - m);
        v[i].z = expf(v[i].z - m);
        v[i].w = expf(v[i].w - m);
        s += (v[i].x + v[i].y) + (v[i].z + v[i].w);
    }
    s = block_sum(s, sh_sum);
    float inv = 1.0f / s;

#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
        int c = threadIdx.x + i * THREADS;
        if (c < nvec) {
            float4 r = make_float4(v[i].x * inv, v[i].y * inv, v[i].z * inv, v[i].w * inv);
            __stcs(out + c, r);
        }
    }
}

// Generic fallback: three passes, any column count.
__global__ void __launch_bounds__(THREADS) softmax_rows_generic(const float* __restrict__ x,
                                                                float* __restrict__ y,
                                                                int64_t cols) {
    __shared__ float sh_max[NWARPS];
    __shared__ float sh_sum[NWARPS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, row[c]);
    m = block_max(m, sh_max);
    float s = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) s += expf(row[c] - m);
    s = block_sum(s, sh_sum);
    float inv = 1.0f / s;
    for (int64_t c = threadIdx.x; c < cols; c += THREADS) out[c] = expf(row[c] - m) * inv;
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
    const float* x = (const float*)in[0].data;
    float* y = (float*)out[0].data;
    bool vec_ok = (cols % 4 == 0) && ((uintptr_t)x % 16 == 0) && ((uintptr_t)y % 16 == 0);
    int64_t nvec = cols / 4;
    int64_t items = (nvec + THREADS - 1) / THREADS;
    unsigned grid = (unsigned)rows;
    if (vec_ok && items <= 1) {
        softmax_rows_registers<1><<<grid, THREADS, 0, stream>>>((const float4*)x, (float4*)y, (int)nvec);
    } else if (vec_ok && items <= 2) {
        softmax_rows_registers<2><<<grid, THREADS, 0, stream>>>((const float4*)x, (float4*)y, (int)nvec);
    } else if (vec_ok && items <= 4) {
        softmax_rows_registers<4><<<grid, THREADS, 0, stream>>>((const float4*)x, (float4*)y, (int)nvec);
    } else if (vec_ok && items <= 8) {
        softmax_rows_registers<8><<<grid, THREADS, 0, stream>>>((const float4*)x, (float4*)y, (int)nvec);
    } else if (vec_ok && items <= 16) {
        softmax_rows_registers<16><<<grid, THREADS, 0, stream>>>((const float4*)x, (float4*)y, (int)nvec);
    } else {
        softmax_rows_generic<<<grid, THREADS, 0, stream>>>(x, y, cols);
    }
    return (int)cudaGetLastError();
}
