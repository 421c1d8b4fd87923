// Reference transpose: one thread per output element, y[j, i] = x[i, j]. Writes are coalesced,
// reads are strided: slow but obviously right.
#include <kernelpro/abi.h>

__global__ void transpose_reference(const float* x, float* y, int64_t rows, int64_t cols) {
    // y has shape [cols, rows]; this thread writes y[j, i].
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;   // column of y = row of x
    int64_t j = blockIdx.y;                                         // row of y = column of x
    if (i < rows && j < cols) y[j * rows + i] = x[i * cols + j];
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2) return 3;
    if (out[0].shape[0] != in[0].shape[1] || out[0].shape[1] != in[0].shape[0]) return 4;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1]) return 5;
    if (out[0].stride[1] != 1 || out[0].stride[0] != out[0].shape[1]) return 5;
    if (in[0].shape[1] > 65535) return 6;   // grid.y limit
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
    int64_t rows = in[0].shape[0], cols = in[0].shape[1];
    dim3 grid((unsigned)((rows + 255) / 256), (unsigned)cols);
    transpose_reference<<<grid, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data,
                                                  rows, cols);
    return (int)cudaGetLastError();
}
