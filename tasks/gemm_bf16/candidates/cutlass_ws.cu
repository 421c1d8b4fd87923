// bf16 GEMM on Hopper through CUTLASS 3's collective builders: TMA loads of A and B tiles into a
// multi-stage shared-memory ring, WGMMA (warpgroup MMA) with fp32 accumulators, warp
// specialization (a producer warp group issues TMA, consumer warp groups run WGMMA) and a TMA
// epilogue. Row-major A [M x K] and B [K x N] are K-major and N-major operands; WGMMA reads
// 16-bit N-major B from shared memory directly, so no transpose is needed.
// SCHEDULE 0 = cooperative (two consumer warp groups share one tile), 1 = ping-pong (they
// alternate tiles, overlapping one tile's epilogue with the other's MMAs).
// The task must allow libraries = ["cutlass"]: sm_90a, --expt-relaxed-constexpr, cluster launches.
// kp:tune TILE_M=128,256
// kp:tune TILE_N=256,128
// kp:tune CLUSTER_M=1,2
// kp:tune CLUSTER_N=2,1
// kp:tune SCHEDULE=0,1
// kp:tune SWIZZLE=1,2,4,8
// kp:constraint TILE_M * TILE_N <= 32768
// kp:constraint SCHEDULE == 0 || TILE_M * TILE_N <= 16384
#include <kernelpro/abi.h>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/util/packed_stride.hpp>

#ifndef TILE_M
#define TILE_M 128
#endif
#ifndef TILE_N
#define TILE_N 256
#endif
#define TILE_K 64   // 128 bytes of bf16: one 128-byte swizzle row per TMA box
#ifndef CLUSTER_M
#define CLUSTER_M 1
#endif
#ifndef CLUSTER_N
#define CLUSTER_N 2
#endif
#ifndef SCHEDULE
#define SCHEDULE 0
#endif
#ifndef SWIZZLE
#define SWIZZLE 1   // the persistent scheduler visits tiles in bands this wide (L2 reuse of A and B)
#endif

namespace {

using namespace cute;

using Element = cutlass::bfloat16_t;
using Accumulator = float;
constexpr int kAlignment = 128 / cutlass::sizeof_bits<Element>::value;  // 16-byte TMA boxes
using TileShape = Shape<Int<TILE_M>, Int<TILE_N>, Int<TILE_K>>;
using ClusterShape = Shape<Int<CLUSTER_M>, Int<CLUSTER_N>, _1>;
using MainloopSchedule = std::conditional_t<SCHEDULE == 0, cutlass::gemm::KernelTmaWarpSpecializedCooperative,
                                            cutlass::gemm::KernelTmaWarpSpecializedPingpong>;
using EpilogueSchedule = std::conditional_t<SCHEDULE == 0, cutlass::epilogue::TmaWarpSpecializedCooperative,
                                            cutlass::epilogue::TmaWarpSpecialized>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, Accumulator,
    void, cutlass::layout::RowMajor, kAlignment,      // no C source: beta = 0
    Element, cutlass::layout::RowMajor, kAlignment,   // D
    EpilogueSchedule>::CollectiveOp;

// The stage count is whatever shared memory is left after the epilogue's buffers.
using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Element, cutlass::layout::RowMajor, kAlignment,
    Element, cutlass::layout::RowMajor, kAlignment,
    Accumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

Gemm g_gemm;
void* g_workspace = nullptr;
size_t g_workspace_bytes = 0;

int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 2 || n_out != 1) return 1;
    if (in[0].dtype != KP_BF16 || in[1].dtype != KP_BF16 || out[0].dtype != KP_BF16) return 2;
    if (in[0].ndim != 2 || in[1].ndim != 2 || out[0].ndim != 2) return 3;
    if (in[0].shape[1] != in[1].shape[0]) return 4;
    if (out[0].shape[0] != in[0].shape[0] || out[0].shape[1] != in[1].shape[1]) return 4;
    for (int i = 0; i < 3; ++i) {
        const kp_tensor& t = i < 2 ? in[i] : out[0];
        if (t.stride[1] != 1 || t.stride[0] != t.shape[1]) return 5;
        if (t.shape[0] > 2147483647LL || t.shape[1] > 2147483647LL) return 6;
        if (t.shape[1] % kAlignment != 0) return 7;  // TMA needs 16-byte aligned rows
    }
    return 0;
}

typename Gemm::Arguments arguments(const kp_tensor* in, kp_tensor* out) {
    const int M = (int)in[0].shape[0], K = (int)in[0].shape[1], N = (int)in[1].shape[1];
    auto stride_a = cutlass::make_cute_packed_stride(typename Kernel::StrideA{}, make_shape(M, K, 1));
    auto stride_b = cutlass::make_cute_packed_stride(typename Kernel::StrideB{}, make_shape(N, K, 1));
    auto stride_d = cutlass::make_cute_packed_stride(typename Kernel::StrideD{}, make_shape(M, N, 1));
    typename Gemm::Arguments args{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {M, N, K, 1},
        {static_cast<const Element*>(in[0].data), stride_a, static_cast<const Element*>(in[1].data), stride_b},
        {{1.0f, 0.0f}, nullptr, stride_d, static_cast<Element*>(out ? out[0].data : nullptr), stride_d}};
    args.scheduler.max_swizzle_size = SWIZZLE;
    return args;
}

}  // namespace

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (int bad = check_shapes(in, n_in, out, n_out)) return bad;
    auto args = arguments(in, const_cast<kp_tensor*>(out));
    if (Gemm::can_implement(args) != cutlass::Status::kSuccess) return 8;
    g_workspace_bytes = Gemm::get_workspace_size(args);
    if (g_workspace_bytes && cudaMalloc(&g_workspace, g_workspace_bytes) != cudaSuccess) return 9;
    return 0;
}

KP_EXPORT void kp_teardown(void) {
    if (g_workspace) cudaFree(g_workspace);
    g_workspace = nullptr;
    g_workspace_bytes = 0;
}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    if (int bad = check_shapes(in, n_in, out, n_out)) return bad;
    auto args = arguments(in, out);
    if (g_gemm.initialize(args, g_workspace, stream) != cutlass::Status::kSuccess) return 10;
    if (g_gemm.run(stream) != cutlass::Status::kSuccess) return 11;
    return (int)cudaGetLastError();
}
