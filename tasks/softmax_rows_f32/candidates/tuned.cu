// Row softmax, online two-pass form: pass 1 reads the row once keeping a running (max, sum of
// exp) per thread, merged across the block; pass 2 re-reads the row (mostly from L2: a block's
// row is 32 KiB) and writes y. Tunables: threads per row and floats per load.
// kp:tune BLOCK=128,256,512,1024
// kp:tune VEC=1,2,4
#include <kernelpro/abi.h>
#include <stdint.h>
#include <string.h>

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 4
#endif
#define NWARPS (BLOCK / 32)

template <int V> struct VecType;
template <> struct VecType<1> { typedef float T; };
template <> struct VecType<2> { typedef float2 T; };
template <> struct VecType<4> { typedef float4 T; };
typedef VecType<VEC>::T vec_t;

__device__ __forceinline__ void load_vec(const float* p, float (&r)[VEC]) {
    vec_t t = *reinterpret_cast<const vec_t*>(p);
    memcpy(r, &t, sizeof(vec_t));
}
__device__ __forceinline__ void store_vec(float* p, const float (&r)[VEC]) {
    vec_t t;
    memcpy(&t, r, sizeof(vec_t));
    *reinterpret_cast<vec_t*>(p) = t;
}

// Merge (m2, s2) into (m, s): s is a sum of exp(x - m).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    float mn = fmaxf(m, m2);
    if (mn == -INFINITY) return;  // both empty
    s = s * __expf(m - mn) + s2 * __expf(m2 - mn);
    m = mn;
}

__global__ void __launch_bounds__(BLOCK) softmax_rows_online(const float* __restrict__ x,
                                                             float* __restrict__ y,
                                                             int64_t cols) {
    __shared__ float sh_m[NWARPS];
    __shared__ float sh_s[NWARPS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;

    float m = -INFINITY, s = 0.0f;
    for (int64_t c = (int64_t)threadIdx.x * VEC; c < cols; c += (int64_t)BLOCK * VEC) {
        float r[VEC];
        load_vec(row + c, r);
        float cm = r[0];
#pragma unroll
        for (int k = 1; k < VEC; ++k) cm = fmaxf(cm, r[k]);
        float mn = fmaxf(m, cm);
        float cs = 0.0f;
#pragma unroll
        for (int k = 0; k < VEC; ++k) cs += expf(r[k] - mn);
        s = s * expf(m - mn) + cs;   // first chunk: m = -inf, s = 0 -> 0 * 0 + cs
        m = mn;
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        merge(m, s, m2, s2);
    }
    if ((threadIdx.x & 31) == 0) {
        sh_m[threadIdx.x >> 5] = m;
        sh_s[threadIdx.x >> 5] = s;
    }
    __syncthreads();
    int lane = threadIdx.x & 31;
    m = lane < NWARPS ? sh_m[lane] : -INFINITY;
    s = lane < NWARPS ? sh_s[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        merge(m, s, m2, s2);
    }
    float inv = 1.0f / s;

    for (int64_t c = (int64_t)threadIdx.x * VEC; c < cols; c += (int64_t)BLOCK * VEC) {
        float r[VEC];
        load_vec(row + c, r);
#pragma unroll
        for (int k = 0; k < VEC; ++k) r[k] = expf(r[k] - m) * inv;
        store_vec(out + c, r);
    }
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2) return 3;
    if (in[0].shape[0] != out[0].shape[0] || in[0].shape[1] != out[0].shape[1]) return 4;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1]) return 5;
    if (out[0].stride[1] != 1 || out[0].stride[0] != out[0].shape[1]) return 5;
    if (in[0].shape[0] > 2147483647LL) return 6;
    if (in[0].shape[1] % VEC != 0) return 7;   // rows must start on a VEC boundary
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
    softmax_rows_online<<<(unsigned)in[0].shape[0], BLOCK, 0, stream>>>(
        (const float*)in[0].data, (float*)out[0].data, in[0].shape[1]);
    return (int)cudaGetLastError();
}
