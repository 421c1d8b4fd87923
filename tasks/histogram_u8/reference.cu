// Reference histogram: zero the counts, then 1024 blocks each build a shared-memory histogram
// (one atomicAdd per byte) over a grid-stride share of x and add it to the counts atomically.
// Integer atomics: the result is exact and order-independent.
#include <kernelpro/abi.h>

#define BINS 256
#define REF_BLOCKS 1024
#define REF_THREADS 256

__global__ void zero_counts(int* counts) { counts[threadIdx.x] = 0; }

__global__ void histogram_reference(const unsigned char* x, int64_t n, int* counts) {
    __shared__ int h[BINS];
    for (int b = threadIdx.x; b < BINS; b += REF_THREADS) h[b] = 0;
    __syncthreads();
    for (int64_t i = (int64_t)blockIdx.x * REF_THREADS + threadIdx.x; i < n;
         i += (int64_t)REF_BLOCKS * REF_THREADS)
        atomicAdd(&h[x[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += REF_THREADS)
        if (h[b] != 0) atomicAdd(&counts[b], h[b]);
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_U8 || out[0].dtype != KP_I32) return 2;
    if (in[0].ndim != 1 || in[0].stride[0] != 1) return 3;
    if (out[0].ndim != 1 || out[0].shape[0] != BINS || out[0].stride[0] != 1) return 4;
    if (in[0].shape[0] > 2147483647LL) return 6;   // counts are int32
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
    int* counts = (int*)out[0].data;
    zero_counts<<<1, BINS, 0, stream>>>(counts);
    histogram_reference<<<REF_BLOCKS, REF_THREADS, 0, stream>>>((const unsigned char*)in[0].data,
                                                                in[0].shape[0], counts);
    return (int)cudaGetLastError();
}
