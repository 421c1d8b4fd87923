// FLAW: fp32 data and fp32 temporaries, but the literal 0.1 is a double: every step of the loop
// converts the product to double (F2F.F64.F32), adds in fp64 (DADD) and converts back (F2F.F32.F64).
// Conversions to and from 64-bit types run at 16 per clock per SM on H200, an eighth of the FFMA
// rate. Expect: fp64_or_unfused_math first (the fix is 0.1f).
#include "kernelpro/abi.h"
__global__ void promoted_poly(const float* __restrict__ x, float* __restrict__ y, long n) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        float v = x[i], acc = 1.f;
        for (int k = 0; k < 32; ++k) acc = acc * v + 0.1;
        y[i] = acc;
    }
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    long n = in[0].shape[0] * in[0].shape[1];
    promoted_poly<<<132 * 8, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return 0;
}
