// Histogram without global atomics: GRID blocks stream x with 16-byte loads into COPIES
// interleaved shared-memory sub-histograms (word bin * COPIES + lane % COPIES: with 32 copies
// every lane of a warp hits its own bank and no two lanes share a counter), then each block
// writes its 256 totals to a scratch row; a second kernel sums the rows per bin in a fixed
// order. Exact and deterministic. Tunables: block size, grid size, sub-histogram copies.
// kp:tune BLOCK=256,512,1024
// kp:tune GRID=264,528,1056
// kp:tune COPIES=1,8,32
#include <kernelpro/abi.h>
#include <stdint.h>

#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef GRID
#define GRID 528
#endif
#ifndef COPIES
#define COPIES 32
#endif
#define BINS 256

static __device__ int g_partial[GRID * BINS];   // scratch, fully rewritten every call

__device__ __forceinline__ void count_word(int* h, unsigned w, int copy) {
    atomicAdd(&h[(w & 0xffu) * COPIES + copy], 1);
    atomicAdd(&h[((w >> 8) & 0xffu) * COPIES + copy], 1);
    atomicAdd(&h[((w >> 16) & 0xffu) * COPIES + copy], 1);
    atomicAdd(&h[(w >> 24) * COPIES + copy], 1);
}

__global__ void __launch_bounds__(BLOCK) histogram_blocks(const unsigned char* __restrict__ x,
                                                          int64_t n) {
    __shared__ int h[BINS * COPIES];
    for (int i = threadIdx.x; i < BINS * COPIES; i += BLOCK) h[i] = 0;
    __syncthreads();

    const int copy = threadIdx.x % COPIES;
    const uint4* xv = reinterpret_cast<const uint4*>(x);
    const int64_t nvec = n / 16;
    const int64_t tid = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    for (int64_t i = tid; i < nvec; i += (int64_t)GRID * BLOCK) {
        uint4 v = __ldcs(xv + i);
        count_word(h, v.x, copy);
        count_word(h, v.y, copy);
        count_word(h, v.z, copy);
        count_word(h, v.w, copy);
    }
    if (tid < n - nvec * 16) atomicAdd(&h[x[nvec * 16 + tid] * COPIES + copy], 1);   // tail
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += BLOCK) {
        int s = 0;
#pragma unroll
        for (int c = 0; c < COPIES; ++c) s += h[b * COPIES + c];
        g_partial[blockIdx.x * BINS + b] = s;
    }
}

__global__ void __launch_bounds__(BINS) histogram_final(int* __restrict__ counts) {
    int s = 0;
    for (int g = 0; g < GRID; ++g) s += g_partial[g * BINS + threadIdx.x];
    counts[threadIdx.x] = s;
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_U8 || out[0].dtype != KP_I32) return 2;
    if (in[0].ndim != 1 || in[0].stride[0] != 1) return 3;
    if (out[0].ndim != 1 || out[0].shape[0] != BINS || out[0].stride[0] != 1) return 4;
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
    if ((uintptr_t)in[0].data % 16 != 0) return 8;
    histogram_blocks<<<GRID, BLOCK, 0, stream>>>((const unsigned char*)in[0].data, in[0].shape[0]);
    histogram_final<<<1, BINS, 0, stream>>>((int*)out[0].data);
    return (int)cudaGetLastError();
}
