// kb_l1_019_ReLU (KernelBench level 1, 19_ReLU.py): y = relu(x) elementwise, fp32.
// One pass, 16-byte loads and stores (float4), a grid-stride loop with 64-bit indices (the input
// has 1.6e9 elements); a scalar loop finishes any tail.
#include <kernelpro/abi.h>

__device__ __forceinline__ float op(float x) { return fmaxf(x, 0.0f); }

__global__ void map_vec4(const float4* __restrict__ x, float4* __restrict__ y, long long n4) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x = op(v.x);
        v.y = op(v.y);
        v.z = op(v.z);
        v.w = op(v.w);
        y[i] = v;
    }
}

__global__ void map_tail(const float* __restrict__ x, float* __restrict__ y, long long begin, long long n) {
    long long i = begin + blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = op(x[i]);
}

KP_EXPORT int kp_forward(const kp_tensor* inputs, int n_inputs, kp_tensor* outputs, int n_outputs, cudaStream_t stream) {
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KP_F32) return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; ++d) n *= inputs[0].shape[d];
    const float* x = (const float*)inputs[0].data;
    float* y = (float*)outputs[0].data;
    long long n4 = n / 4;
    if (n4 > 0) map_vec4<<<132 * 16, 256, 0, stream>>>((const float4*)x, (float4*)y, n4);
    if (n % 4) map_tail<<<1, 256, 0, stream>>>(x, y, n4 * 4, n);
    return (int)cudaGetLastError();
}
