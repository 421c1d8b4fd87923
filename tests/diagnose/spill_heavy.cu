// A deliberately register-starved kernel for the profile CLI test: a large per-thread array indexed
// dynamically forces local memory, and __launch_bounds__(1024, 2) caps registers at 32.
#include <kernelpro/abi.h>

__global__ void __launch_bounds__(1024, 2) spill_heavy(const float* in, float* out, long n) {
    float acc[64];
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 64; ++k) acc[k] = in[(i + k) % n] * (k + 1);
    float s = 0.f;
    for (int k = 0; k < 64; ++k) s += acc[(k * 7 + (int)i) & 63] * acc[(k * 13) & 63];
    out[i] = s;
}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    if (n_in != 1 || n_out != 1) return 1;
    long n = in[0].shape[0] * in[0].shape[1];
    spill_heavy<<<(unsigned)((n + 1023) / 1024), 1024, 0, stream>>>((const float*)in[0].data, (float*)out[0].data, n);
    return (int)cudaGetLastError();
}
