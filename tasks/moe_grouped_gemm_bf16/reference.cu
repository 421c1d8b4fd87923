// Reference MoE grouped GEMM: y[t, k] = x[t] @ w[topk_idx[t, k]], bf16 in and out, fp32 on CUDA
// cores. Slots (t, k) are first bucketed by expert (an atomic counter per expert; the order inside
// a bucket does not change any value, each output row is its own dot products); then one block
// per (expert, 64-column tile) walks its expert's slots 32 at a time, staging 32 x 32 pieces of x
// and w in shared memory. Independent of the candidates' gather / grouped-GEMM / scatter path.
#include <kernelpro/abi.h>
#include <cuda_bf16.h>

#define CHUNK 32   // slots per pass
#define HT 32      // hidden elements per staged piece
#define FT 64      // output columns per block

static int* g_counts = nullptr;   // [experts]
static int* g_buckets = nullptr;  // [experts][slots]: slot ids per expert
static int64_t g_slots = 0, g_experts = 0;

__global__ void bucket_slots(const int* topk_idx, int64_t slots, int64_t experts, int* counts, int* buckets) {
    int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= slots) return;
    int e = topk_idx[s];
    if (e < 0 || e >= experts) return;  // an expert id out of range routes nowhere (its row stays 0)
    int at = atomicAdd(&counts[e], 1);
    buckets[(int64_t)e * slots + at] = (int)s;
}

__global__ void zero_rows(__nv_bfloat16* y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16_rn(0.0f);
}

__global__ void __launch_bounds__(256) expert_tiles(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                                    const int* counts, const int* buckets, int64_t slots, int top_k,
                                                    int64_t H, int64_t F) {
    __shared__ float xs[CHUNK][HT + 1];
    __shared__ float ws[HT][FT];
    __shared__ int sid[CHUNK];
    const int e = blockIdx.y;
    const int64_t f0 = (int64_t)blockIdx.x * FT;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // rows 2*ty, 2*ty+1; columns 4*tx .. 4*tx+3
    const int n = counts[e];
    for (int c0 = 0; c0 < n; c0 += CHUNK) {
        __syncthreads();
        if (threadIdx.x < CHUNK) sid[threadIdx.x] = c0 + threadIdx.x < n ? buckets[(int64_t)e * slots + c0 + threadIdx.x] : -1;
        __syncthreads();
        float acc[2][4] = {};
        for (int64_t h0 = 0; h0 < H; h0 += HT) {
            for (int i = threadIdx.x; i < CHUNK * HT; i += blockDim.x) {
                int r = i / HT, h = i % HT;
                xs[r][h] = (sid[r] >= 0 && h0 + h < H) ? __bfloat162float(x[(int64_t)(sid[r] / top_k) * H + h0 + h]) : 0.0f;
            }
            for (int i = threadIdx.x; i < HT * FT; i += blockDim.x) {
                int hh = i / FT, f = i % FT;
                ws[hh][f] = (h0 + hh < H && f0 + f < F) ? __bfloat162float(w[((int64_t)e * H + h0 + hh) * F + f0 + f]) : 0.0f;
            }
            __syncthreads();
            for (int hh = 0; hh < HT; ++hh)
                for (int r = 0; r < 2; ++r) {
                    float a = xs[2 * ty + r][hh];
                    for (int c = 0; c < 4; ++c) acc[r][c] += a * ws[hh][4 * tx + c];
                }
            __syncthreads();
        }
        for (int r = 0; r < 2; ++r) {
            int s = sid[2 * ty + r];
            if (s < 0) continue;
            for (int c = 0; c < 4; ++c)
                if (f0 + 4 * tx + c < F) y[(int64_t)s * F + f0 + 4 * tx + c] = __float2bfloat16_rn(acc[r][c]);
        }
    }
}

// x [T, H] bf16, topk_idx [T, K] i32, w [E, H, F] bf16 -> y [T, K, F] bf16, all contiguous.
static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 3 || n_out != 1) return 1;
    if (in[0].dtype != KP_BF16 || in[1].dtype != KP_I32 || in[2].dtype != KP_BF16 || out[0].dtype != KP_BF16) return 2;
    if (in[0].ndim != 2 || in[1].ndim != 2 || in[2].ndim != 3 || out[0].ndim != 3) return 3;
    const int64_t T = in[0].shape[0], H = in[0].shape[1], K = in[1].shape[1], F = in[2].shape[2];
    if (in[1].shape[0] != T || in[2].shape[1] != H || out[0].shape[0] != T || out[0].shape[1] != K || out[0].shape[2] != F) return 4;
    if (T * K > 2147483647LL) return 6;
    return 0;
}

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (int bad = check_shapes(in, n_in, out, n_out)) return bad;
    g_slots = in[1].shape[0] * in[1].shape[1];
    g_experts = in[2].shape[0];
    if (cudaMalloc(&g_counts, g_experts * sizeof(int)) != cudaSuccess) return 100;
    if (cudaMalloc(&g_buckets, g_experts * g_slots * sizeof(int)) != cudaSuccess) return 101;
    return 0;
}

KP_EXPORT void kp_teardown(void) {
    cudaFree(g_counts);
    cudaFree(g_buckets);
    g_counts = g_buckets = nullptr;
}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    if (int bad = check_shapes(in, n_in, out, n_out)) return bad;
    const int64_t H = in[0].shape[1], K = in[1].shape[1], F = in[2].shape[2];
    const auto* x = static_cast<const __nv_bfloat16*>(in[0].data);
    const auto* idx = static_cast<const int*>(in[1].data);
    const auto* w = static_cast<const __nv_bfloat16*>(in[2].data);
    auto* y = static_cast<__nv_bfloat16*>(out[0].data);
    const int64_t ny = g_slots * F;
    zero_rows<<<(unsigned)((ny + 255) / 256), 256, 0, stream>>>(y, ny);
    cudaMemsetAsync(g_counts, 0, g_experts * sizeof(int), stream);
    bucket_slots<<<(unsigned)((g_slots + 255) / 256), 256, 0, stream>>>(idx, g_slots, g_experts, g_counts, g_buckets);
    expert_tiles<<<dim3((unsigned)((F + FT - 1) / FT), (unsigned)g_experts), 256, 0, stream>>>(x, w, y, g_counts, g_buckets,
                                                                                           g_slots, (int)K, H, F);
    return (int)cudaGetLastError();
}
