// LayerNorm, three passes over the row per block (sum, centred sum of squares, output); the
// second and third reads of a block's row come mostly from L2. Tunables: threads per row and
// floats per load.
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
#define LN_EPS 1e-5f

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
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float block_sum(float v, float* sh) {
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    v = ((threadIdx.x & 31) < NWARPS) ? sh[threadIdx.x & 31] : 0.0f;
    return warp_sum(v);
}

__global__ void __launch_bounds__(BLOCK) layernorm_passes(const float* __restrict__ x,
                                                          const float* __restrict__ gamma,
                                                          const float* __restrict__ beta,
                                                          float* __restrict__ y, int64_t cols) {
    __shared__ float sh_a[NWARPS];
    __shared__ float sh_b[NWARPS];
    const float* row = x + (int64_t)blockIdx.x * cols;
    float* out = y + (int64_t)blockIdx.x * cols;
    const int64_t start = (int64_t)threadIdx.x * VEC, step = (int64_t)BLOCK * VEC;

    float s = 0.0f;
    for (int64_t c = start; c < cols; c += step) {
        float r[VEC];
        load_vec(row + c, r);
#pragma unroll
        for (int k = 0; k < VEC; ++k) s += r[k];
    }
    float mean = block_sum(s, sh_a) / (float)cols;

    float q = 0.0f;
    for (int64_t c = start; c < cols; c += step) {
        float r[VEC];
        load_vec(row + c, r);
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            float d = r[k] - mean;
            q += d * d;
        }
    }
    float rstd = rsqrtf(block_sum(q, sh_b) / (float)cols + LN_EPS);

    for (int64_t c = start; c < cols; c += step) {
        float r[VEC], g[VEC], b[VEC];
        load_vec(row + c, r);
        load_vec(gamma + c, g);
        load_vec(beta + c, b);
#pragma unroll
        for (int k = 0; k < VEC; ++k) r[k] = (r[k] - mean) * rstd * g[k] + b[k];
        store_vec(out + c, r);
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

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 3 || n_out != 1) return 1;
    for (int i = 0; i < 3; ++i) if (in[i].dtype != KP_F32 || !contiguous(in[i])) return 2;
    if (out[0].dtype != KP_F32 || !contiguous(out[0])) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2 || in[1].ndim != 1 || in[2].ndim != 1) return 3;
    int64_t cols = in[0].shape[1];
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != cols) return 4;
    if (in[1].shape[0] != cols || in[2].shape[0] != cols) return 4;
    if (in[0].shape[0] > 2147483647LL) return 6;
    if (cols % VEC != 0) return 7;
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
    layernorm_passes<<<(unsigned)in[0].shape[0], BLOCK, 0, stream>>>(
        (const float*)in[0].data, (const float*)in[1].data, (const float*)in[2].data,
        (float*)out[0].data, in[0].shape[1]);
    return (int)cudaGetLastError();
}
