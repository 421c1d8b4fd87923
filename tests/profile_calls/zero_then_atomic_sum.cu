// A call of two kernels: a 1-thread kernel zeroes the result, then every thread of a large grid
// adds its element with one atomicAdd on that single address. The atomics serialize in the L2
// slice that owns y[0] (the flaw); the zeroing kernel takes a negligible share of the call, so
// its 1-block grid must not head the call's findings.
#include <kernelpro/abi.h>

__global__ void zero_output(float* y) { y[0] = 0.0f; }

__global__ void atomic_sum(const float* x, float* y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(y, x[i]);
}

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    return (n_in == 1 && n_out == 1 && in[0].dtype == KP_F32 && out[0].dtype == KP_F32) ? 0 : 1;
}

KP_EXPORT void kp_teardown(void) {}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    const int64_t n = in[0].shape[0];
    zero_output<<<1, 1, 0, stream>>>((float*)out[0].data);
    atomic_sum<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return (int)cudaGetLastError();
}
