// kb_l1_023_Softmax (KernelBench level 1, 23_Softmax.py): softmax over dim 1 of a 4096 x 393216 fp32
// matrix. One block per row; one pass computes the row's maximum and its sum of exp(x - max)
// together (the running sum is rescaled when the maximum grows), a second writes exp(x - max) / sum:
// two reads and one write of the row instead of three reads.
#include <kernelpro/abi.h>
#include <math.h>

#define THREADS 1024

struct MaxSum {
    float m, s;
};

__device__ __forceinline__ MaxSum combine(MaxSum a, MaxSum b) {
    if (a.m == -INFINITY) return b;
    if (b.m == -INFINITY) return a;
    float m = fmaxf(a.m, b.m);
    return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ MaxSum add(MaxSum a, float v) {
    if (v > a.m) return {v, a.s * expf(a.m - v) + 1.0f};
    return {a.m, a.s + expf(v - a.m)};
}

__global__ void __launch_bounds__(THREADS) softmax_rows(const float* __restrict__ x, float* __restrict__ y, long long cols) {
    const float* row = x + blockIdx.x * cols;
    float* out = y + blockIdx.x * cols;
    const long long cols4 = cols / 4;
    MaxSum t{-INFINITY, 0.0f};
    const float4* row4 = reinterpret_cast<const float4*>(row);
    for (long long i = threadIdx.x; i < cols4; i += THREADS) {
        float4 v = row4[i];
        t = add(add(add(add(t, v.x), v.y), v.z), v.w);
    }
    for (long long i = cols4 * 4 + threadIdx.x; i < cols; i += THREADS) t = add(t, row[i]);
    // Block reduction of (max, sum): warps by shuffles, then the first warp over the warps.
    for (int o = 16; o > 0; o >>= 1) {
        MaxSum other{__shfl_xor_sync(0xffffffffu, t.m, o), __shfl_xor_sync(0xffffffffu, t.s, o)};
        t = combine(t, other);
    }
    __shared__ MaxSum warps[THREADS / 32];
    __shared__ MaxSum total;
    if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = t;
    __syncthreads();
    if (threadIdx.x < 32) {
        MaxSum w = threadIdx.x < THREADS / 32 ? warps[threadIdx.x] : MaxSum{-INFINITY, 0.0f};
        for (int o = 16; o > 0; o >>= 1) {
            MaxSum other{__shfl_xor_sync(0xffffffffu, w.m, o), __shfl_xor_sync(0xffffffffu, w.s, o)};
            w = combine(w, other);
        }
        if (threadIdx.x == 0) total = w;
    }
    __syncthreads();
    const float m = total.m, inv = 1.0f / total.s;
    float4* out4 = reinterpret_cast<float4*>(out);
    for (long long i = threadIdx.x; i < cols4; i += THREADS) {
        float4 v = row4[i];
        out4[i] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv, expf(v.w - m) * inv);
    }
    for (long long i = cols4 * 4 + threadIdx.x; i < cols; i += THREADS) out[i] = expf(row[i] - m) * inv;
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[0].dtype != KP_F32) return 1;
    long long rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    if (cols % 4) return 2;  // the float4 path needs 16-byte aligned rows
    softmax_rows<<<(unsigned)rows, THREADS, 0, stream>>>((const float*)inputs[0].data, (float*)outputs[0].data, cols);
    return (int)cudaGetLastError();
}
