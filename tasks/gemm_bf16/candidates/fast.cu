// bf16 GEMM on tensor cores through WMMA (mma.sync, m16n16k16, fp32 accumulators).
// Block tile 128 x 128 x 32, 8 warps in a 2 x 4 grid (warp tile 64 x 32: 8 accumulator
// fragments), a 3-stage cp.async pipeline of A and B tiles in padded shared memory (rows padded
// by 16 bytes against bank conflicts), and a per-warp fp32 staging tile in the epilogue so C is
// written as 16-byte bf16 vectors. Other shapes fall back to a simple CUDA-core kernel.
#include <kernelpro/abi.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <stdint.h>

#define BM 128
#define BN 128
#define STAGES 3
#define BK 32
#define THREADS 256
#define WARPS_M 2
#define WARPS_N 4
#define WM (BM / WARPS_M)
#define WN (BN / WARPS_N)
#define FRAG_M (WM / 16)
#define FRAG_N (WN / 16)
#define A_LD (BK + 8)   // bf16 elements per smem row of the A tile
#define B_LD (BN + 8)   // bf16 elements per smem row of the B tile
#define A_STAGE (BM * A_LD)
#define B_STAGE (BK * B_LD)
#define SMEM_BYTES ((STAGES * (A_STAGE + B_STAGE)) * 2)
#define A_CHUNKS (BM * BK / 8)   // 16-byte chunks per A tile
#define B_CHUNKS (BK * BN / 8)

#if WN < 16 || WM < 16
#error "warp tile too small"
#endif
#if A_CHUNKS % THREADS != 0 || B_CHUNKS % THREADS != 0
#error "tile chunks must divide evenly over the threads"
#endif
#if THREADS / 32 * 1024 > SMEM_BYTES
#error "epilogue staging does not fit"
#endif

using namespace nvcuda;
typedef __nv_bfloat16 bf16;

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

// Stage tile `kt` (columns kt*BK.. of A's block rows, rows kt*BK.. of B's block columns).
__device__ __forceinline__ void load_tiles(bf16* As, bf16* Bs, const bf16* __restrict__ A,
                                           const bf16* __restrict__ B, int64_t m0, int64_t n0,
                                           int64_t kt, int64_t N, int64_t K) {
    const int64_t k0 = kt * BK;
#pragma unroll
    for (int i = 0; i < A_CHUNKS / THREADS; ++i) {
        int c = threadIdx.x + i * THREADS;
        int r = c / (BK / 8), col = (c % (BK / 8)) * 8;
        cp_async16(As + r * A_LD + col, A + (m0 + r) * K + k0 + col);
    }
#pragma unroll
    for (int i = 0; i < B_CHUNKS / THREADS; ++i) {
        int c = threadIdx.x + i * THREADS;
        int r = c / (BN / 8), col = (c % (BN / 8)) * 8;
        cp_async16(Bs + r * B_LD + col, B + (k0 + r) * N + n0 + col);
    }
}

__global__ void __launch_bounds__(THREADS) gemm_wmma(const bf16* __restrict__ A,
                                                     const bf16* __restrict__ B,
                                                     bf16* __restrict__ C, int64_t M, int64_t N,
                                                     int64_t K) {
    extern __shared__ __align__(128) unsigned char smem[];
    bf16* As = reinterpret_cast<bf16*>(smem);
    bf16* Bs = As + STAGES * A_STAGE;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm0 = (warp / WARPS_N) * WM, wn0 = (warp % WARPS_N) * WN;
    const int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
    const int64_t ktiles = K / BK;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FRAG_M][FRAG_N];
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // Prologue: tiles 0 .. STAGES-2, one commit group each (empty groups keep the count fixed).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ktiles) load_tiles(As + s * A_STAGE, Bs + s * B_STAGE, A, B, m0, n0, s, N, K);
        cp_async_commit();
    }

    for (int64_t kt = 0; kt < ktiles; ++kt) {
        cp_async_wait<STAGES - 2>();   // groups 0..kt done: tile kt is in shared memory
        __syncthreads();               // ... for every thread; and stage (kt-1) % STAGES is free
        int64_t next = kt + STAGES - 1;
        if (next < ktiles) {
            int ns = (int)(next % STAGES);
            load_tiles(As + ns * A_STAGE, Bs + ns * B_STAGE, A, B, m0, n0, next, N, K);
        }
        cp_async_commit();

        const int s = (int)(kt % STAGES);
        const bf16* as = As + s * A_STAGE;
        const bf16* bs = Bs + s * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> a[FRAG_M];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> b[FRAG_N];
#pragma unroll
            for (int i = 0; i < FRAG_M; ++i)
                wmma::load_matrix_sync(a[i], as + (wm0 + i * 16) * A_LD + kk, A_LD);
#pragma unroll
            for (int j = 0; j < FRAG_N; ++j)
                wmma::load_matrix_sync(b[j], bs + kk * B_LD + wn0 + j * 16, B_LD);
#pragma unroll
            for (int i = 0; i < FRAG_M; ++i)
#pragma unroll
                for (int j = 0; j < FRAG_N; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
    }

    // Epilogue: the pipeline buffers are free once every copy has landed and every warp is done.
    cp_async_wait<0>();
    __syncthreads();
    float* stage = reinterpret_cast<float*>(smem) + warp * 256;   // 16 x 16 fp32 per warp
    const int r = lane / 2, c = (lane % 2) * 8;
#pragma unroll
    for (int i = 0; i < FRAG_M; ++i) {
#pragma unroll
        for (int j = 0; j < FRAG_N; ++j) {
            wmma::store_matrix_sync(stage, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            __align__(16) bf16 h[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) h[e] = __float2bfloat16_rn(stage[r * 16 + c + e]);
            int64_t row = m0 + wm0 + i * 16 + r, col = n0 + wn0 + j * 16 + c;
            *reinterpret_cast<uint4*>(C + row * N + col) = *reinterpret_cast<const uint4*>(h);
            __syncwarp();   // stage is overwritten by the next fragment
        }
    }
}

// Fallback for shapes the tiled kernel does not cover.
__global__ void gemm_simple(const bf16* A, const bf16* B, bf16* C, int64_t M, int64_t N, int64_t K) {
    __shared__ float as[16][16];
    __shared__ float bs[16][16];
    int64_t row = (int64_t)blockIdx.y * 16 + threadIdx.y, col = (int64_t)blockIdx.x * 16 + threadIdx.x;
    float acc = 0.0f;
    for (int64_t k0 = 0; k0 < K; k0 += 16) {
        int64_t ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
        as[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? __bfloat162float(A[row * K + ka]) : 0.0f;
        bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? __bfloat162float(B[kb * N + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = __float2bfloat16_rn(acc);
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 2 || n_out != 1) return 1;
    if (in[0].dtype != KP_BF16 || in[1].dtype != KP_BF16 || out[0].dtype != KP_BF16) return 2;
    if (in[0].ndim != 2 || in[1].ndim != 2 || out[0].ndim != 2) return 3;
    if (in[0].shape[1] != in[1].shape[0]) return 4;
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != in[1].shape[1]) return 4;
    for (int i = 0; i < 3; ++i) {
        const kp_tensor& t = i < 2 ? in[i] : out[0];
        if (t.stride[1] != 1 || t.stride[0] != t.shape[1]) return 5;
    }
    if ((in[0].shape[0] + 15) / 16 > 65535) return 6;
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
    const bf16* A = (const bf16*)in[0].data;
    const bf16* B = (const bf16*)in[1].data;
    bf16* C = (bf16*)out[0].data;
    int64_t M = in[0].shape[0], K = in[0].shape[1], N = in[1].shape[1];
    bool tiled = M % BM == 0 && N % BN == 0 && K % BK == 0 && M / BM <= 65535 &&
                 (((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 16 == 0);
    if (tiled) {
        static bool attr_set = false;   // raising the dynamic shared-memory limit is per function
        if (!attr_set) {
            cudaError_t e = cudaFuncSetAttribute(gemm_wmma, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 SMEM_BYTES);
            if (e != cudaSuccess) return (int)e;
            attr_set = true;
        }
        dim3 grid((unsigned)(N / BN), (unsigned)(M / BM));
        gemm_wmma<<<grid, THREADS, SMEM_BYTES, stream>>>(A, B, C, M, N, K);
    } else {
        dim3 grid((unsigned)((N + 15) / 16), (unsigned)((M + 15) / 16));
        gemm_simple<<<grid, dim3(16, 16), 0, stream>>>(A, B, C, M, N, K);
    }
    return (int)cudaGetLastError();
}
