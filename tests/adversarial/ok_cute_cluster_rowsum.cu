// HONEST (CUTLASS task): a CuTe row sum launched in clusters of two CTAs through CUTLASS's own
// ClusterLauncher (cudaLaunchKernelExC with only a cluster-dimension attribute).
// EXPECT: ok on task_cutlass (the launch gate admits cluster dimensions). It is also the CI build
// test's candidate (tests/build/cutlass_build_test.cpp): compiles for sm_90a and passes the guard.
#include <kernelpro/abi.h>

#include <cute/tensor.hpp>
#include <cutlass/cluster_launch.hpp>

using namespace cute;

// One warp per row, 16-byte loads, shuffle reduction; the indexing goes through CuTe layouts.
__global__ void rowsum_cute(const float4* __restrict__ x, float* __restrict__ y, int rows, int cols4) {
    Tensor m_x = make_tensor(make_gmem_ptr(x), make_layout(make_shape(rows, cols4), LayoutRight{}));
    Tensor m_y = make_tensor(make_gmem_ptr(y), make_layout(make_shape(rows)));
    int row = blockIdx.x * 8 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    Tensor x_row = m_x(row, _);
    float s = 0.0f;
    for (int c = lane; c < size(x_row); c += 32) {
        float4 v = x_row(c);
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) m_y(row) = s;
}

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 1 || n_out != 1 || in[0].dtype != KP_F32 || in[0].ndim != 2) return 1;
    if (in[0].shape[1] % 4 != 0 || in[0].shape[0] % 16 != 0 || in[0].shape[0] > (1 << 30)) return 2;
    return 0;
}

KP_EXPORT void kp_teardown(void) {}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    (void)n_in;
    (void)n_out;
    const float4* x = static_cast<const float4*>(in[0].data);
    float* y = static_cast<float*>(out[0].data);
    int rows = static_cast<int>(in[0].shape[0]);
    int cols4 = static_cast<int>(in[0].shape[1] / 4);
    void* args[] = {&x, &y, &rows, &cols4};
    dim3 grid(rows / 8), cluster(2, 1, 1), block(256);
    cutlass::Status status =
        cutlass::ClusterLauncher::launch(grid, cluster, block, 0, stream, reinterpret_cast<const void*>(&rowsum_cute), args);
    return status == cutlass::Status::kSuccess ? 0 : 10;
}
