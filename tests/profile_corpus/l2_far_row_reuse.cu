// FLAW: each output row sums four input rows a quarter of the matrix apart. Every input row is
// read by four blocks, but blocks run in row order, so the next reader of a row comes 64 MiB of
// traffic later, past the 60 MiB L2: the row comes from DRAM again each time.
// Expect: l2_locality first (the fix: order the blocks so the four readers of a row run together).
#include "kernelpro/abi.h"
__global__ void sum_far_rows(const float4* __restrict__ x, float4* __restrict__ y, int rows, int cols4) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
    if (c >= cols4) return;
    float4 s = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int src = r + k * (rows / 4);
        if (src >= rows) src -= rows;
        float4 v = x[(long)src * cols4 + c];
        s.x += v.x; s.y += v.y; s.z += v.z; s.w += v.w;
    }
    y[(long)r * cols4 + c] = s;
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    int rows = (int)in[0].shape[0], cols4 = (int)in[0].shape[1] / 4;
    sum_far_rows<<<dim3(cols4 / 256, rows), 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, rows, cols4);
    return 0;
}
