// Reference 5-point damped Jacobi sweep: one thread per grid point, computed in fp64.
#include <kernelpro/abi.h>

__global__ void jacobi_reference(const float* x, float* y, int64_t rows, int64_t cols) {
    int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t i = blockIdx.y;
    if (j >= cols || i >= rows) return;
    int64_t p = i * cols + j;
    if (i == 0 || i == rows - 1 || j == 0 || j == cols - 1) {
        y[p] = x[p];
    } else {
        double nb = (double)x[p - cols] + (double)x[p + cols] + (double)x[p - 1] + (double)x[p + 1];
        y[p] = (float)(0.5 * (double)x[p] + 0.125 * nb);
    }
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2) return 3;
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != in[0].shape[1]) return 4;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1]) return 5;
    if (out[0].stride[1] != 1 || out[0].stride[0] != out[0].shape[1]) return 5;
    if (in[0].shape[0] > 65535) return 6;   // grid.y limit
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
    dim3 grid((unsigned)((cols + 255) / 256), (unsigned)rows);
    jacobi_reference<<<grid, 256, 0, stream>>>((const float*)in[0].data, (float*)out[0].data,
                                               rows, cols);
    return (int)cudaGetLastError();
}
