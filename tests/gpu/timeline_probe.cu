// A small CUDA program for the gpu-labelled timeline test: known launches, copies and a memset, so
// the trace written by libkp_timeline.so can be checked record by record.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void kp_probe_scale(float* data, int count, float factor) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] = data[i] * factor + 1.0f;
}

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t status_ = (call);                                                       \
        if (status_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status_));    \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

int main() {
    constexpr int kCount = 1 << 20;
    constexpr int kLaunches = 20;
    std::vector<float> host(kCount, 2.0f);
    float* device = nullptr;
    float* scratch = nullptr;
    CHECK(cudaMalloc(&device, kCount * sizeof(float)));
    CHECK(cudaMalloc(&scratch, kCount * sizeof(float)));
    CHECK(cudaMemcpy(device, host.data(), kCount * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(scratch, 0, kCount * sizeof(float)));
    for (int i = 0; i < kLaunches; ++i) kp_probe_scale<<<(kCount + 255) / 256, 256>>>(device, kCount, 1.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(host.data(), device, kCount * sizeof(float), cudaMemcpyDeviceToHost));
    // 2 + 20 additions of 1.
    if (host[0] != 2.0f + kLaunches || host[kCount - 1] != 2.0f + kLaunches) {
        std::fprintf(stderr, "wrong result %f\n", host[0]);
        return 1;
    }
    cudaFree(device);
    cudaFree(scratch);
    return 0;
}
