// Tiled transpose: a 32 x 32 tile goes through shared memory (padded by one column so the
// column-wise reads hit 32 different banks); 32 x 8 threads, 4 elements each. Reads and writes
// are both coalesced.
#include <kernelpro/abi.h>

#define TILE 32
#define BLOCK_ROWS 8

__global__ void __launch_bounds__(TILE * BLOCK_ROWS) transpose_tiled(const float* __restrict__ x,
                                                                     float* __restrict__ y,
                                                                     int64_t rows, int64_t cols) {
    __shared__ float tile[TILE][TILE + 1];
    const int64_t c0 = (int64_t)blockIdx.x * TILE;   // first column of x in this tile
    const int64_t r0 = (int64_t)blockIdx.y * TILE;   // first row of x in this tile
    const int tx = threadIdx.x, ty = threadIdx.y;

#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        int64_t r = r0 + ty + k, c = c0 + tx;
        if (r < rows && c < cols) tile[ty + k][tx] = __ldcs(x + r * cols + c);
    }
    __syncthreads();
    // y has shape [cols, rows]: y[c, r] = x[r, c] = tile[r - r0][c - c0].
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        int64_t c = c0 + ty + k, r = r0 + tx;
        if (r < rows && c < cols) __stcs(y + c * rows + r, tile[tx][ty + k]);
    }
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1) return 1;
    if (in[0].dtype != KP_F32 || out[0].dtype != KP_F32) return 2;
    if (in[0].ndim != 2 || out[0].ndim != 2) return 3;
    if (out[0].shape[0] != in[0].shape[1] || out[0].shape[1] != in[0].shape[0]) return 4;
    if (in[0].stride[1] != 1 || in[0].stride[0] != in[0].shape[1]) return 5;
    if (out[0].stride[1] != 1 || out[0].stride[0] != out[0].shape[1]) return 5;
    if ((in[0].shape[0] + TILE - 1) / TILE > 65535) return 6;   // grid.y limit
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
    dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
    dim3 block(TILE, BLOCK_ROWS);
    transpose_tiled<<<grid, block, 0, stream>>>((const float*)in[0].data, (float*)out[0].data,
                                                rows, cols);
    return (int)cudaGetLastError();
}
