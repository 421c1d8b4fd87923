// HEALTHY (near the launch-overhead limit): the call is four launches of a float4 copy, each over a
// quarter of the 256 MiB tensor (about 34 us each at DRAM speed), back to back in one stream. The
// gaps between launches are a few percent of the call: launch_overhead must stay quiet, and no tool
// may claim more than max_gain. The healthy counterpart of many_tiny_launches.
#include "kernelpro/abi.h"
__global__ void copy_quarter(const float4* __restrict__ x, float4* __restrict__ y, long offset4, long count4) {
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < count4; i += (long)gridDim.x * blockDim.x)
        y[offset4 + i] = x[offset4 + i];
}
KP_EXPORT int kp_forward(const kp_tensor* in, int, kp_tensor* out, int, cudaStream_t stream) {
    const long total4 = in[0].shape[0] * in[0].shape[1] / 4, quarter4 = total4 / 4;
    for (int q = 0; q < 4; ++q)
        copy_quarter<<<132 * 8, 256, 0, stream>>>((const float4*)in[0].data, (float4*)out[0].data, q * quarter4, quarter4);
    return 0;
}
