// y = 2x + 1 by a grid-stride loop over float4s, GRID blocks of 256 threads, UNROLL float4s in
// flight per thread and step. The defaults launch 16 blocks: most SMs get none (the flaw the
// tuning corpus gives the tuner to find, tests/tuning_corpus/README.md).
// kp:tune GRID=16,32,66,132,264,528,1056
// kp:tune UNROLL=1,2,4
#include "kernelpro/abi.h"

#ifndef GRID
#define GRID 16
#endif
#ifndef UNROLL
#define UNROLL 1
#endif

__device__ __forceinline__ float4 scale(float4 v) {
    return make_float4(2.0f * v.x + 1.0f, 2.0f * v.y + 1.0f, 2.0f * v.z + 1.0f, 2.0f * v.w + 1.0f);
}

__global__ void __launch_bounds__(256) scale_grid_stride(const float4* __restrict__ x, float4* __restrict__ y, long n4) {
    const long stride = (long)gridDim.x * blockDim.x;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4; i += stride * UNROLL) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (i + u * stride < n4) v[u] = x[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            if (i + u * stride < n4) y[i + u * stride] = scale(v[u]);
    }
}

KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    const long n = in[0].shape[0] * in[0].shape[1];
    if (n % 4 != 0) return 1;
    scale_grid_stride<<<GRID, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, n / 4);
    return (int)cudaGetLastError();
}
