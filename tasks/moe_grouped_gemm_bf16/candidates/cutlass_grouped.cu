// MoE expert projection as one CUTLASS grouped GEMM on Hopper: the slots (t, k) are sorted by
// expert on the device (a count per expert, an exclusive scan, an atomic cursor per expert), the
// x rows are gathered into expert order, one persistent warp-specialized TMA + WGMMA kernel runs
// every expert's [n_e x 2048] @ [2048 x 768] product (the problem sizes and pointers are written
// on the device, so nothing waits for the host), and the rows are scattered back to y[t, k].
// A token that sends two slots to one expert simply gets two rows of that expert's group.
// The order of rows inside a group does not change any value (each row is its own dot products).
// kp:tune TILE_M=64,128
// kp:tune TILE_N=256,128
// kp:tune CLUSTER_N=1,2
// kp:tune SCHEDULE=1,0
// kp:constraint SCHEDULE == 1 || TILE_M == 128
#include <kernelpro/abi.h>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/group_array_problem_shape.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/util/packed_stride.hpp>

#ifndef TILE_M
#define TILE_M 64
#endif
#ifndef TILE_N
#define TILE_N 256
#endif
#ifndef CLUSTER_N
#define CLUSTER_N 1
#endif
#ifndef SCHEDULE
#define SCHEDULE 1   // 0 cooperative, 1 ping-pong
#endif

// A named namespace: nvcc's kernel stubs cannot name kernels of an anonymous one that also
// pulls in cute's anonymous namespaces.
namespace moe_grouped {

using namespace cute;

using Element = cutlass::bfloat16_t;
using Accumulator = float;
constexpr int kAlignment = 8;  // 16-byte rows for TMA
using ProblemShape = cutlass::gemm::GroupProblemShape<Shape<int, int, int>>;  // per group: M, N, K
using TileShape = Shape<Int<TILE_M>, Int<TILE_N>, _64>;
using ClusterShape = Shape<_1, Int<CLUSTER_N>, _1>;
using MainloopSchedule = std::conditional_t<SCHEDULE == 0, cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative,
                                            cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpong>;
using EpilogueSchedule = std::conditional_t<SCHEDULE == 0, cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative,
                                            cutlass::epilogue::PtrArrayTmaWarpSpecializedPingpong>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, Accumulator, Accumulator,
    void, cutlass::layout::RowMajor*, kAlignment,       // no C source (beta = 0)
    Element, cutlass::layout::RowMajor*, kAlignment,    // D: one pointer per group
    EpilogueSchedule>::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Element, cutlass::layout::RowMajor*, kAlignment,
    Element, cutlass::layout::RowMajor*, kAlignment,
    Accumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;

using Kernel = cutlass::gemm::kernel::GemmUniversal<ProblemShape, Mainloop, Epilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
using StrideA = typename Kernel::InternalStrideA;
using StrideB = typename Kernel::InternalStrideB;
using StrideD = typename Kernel::InternalStrideD;
using GroupShape = typename ProblemShape::UnderlyingProblemShape;

// Device scratch, sized once in kp_setup from the shapes.
struct Plan {
    int64_t tokens = 0, top_k = 0, experts = 0, hidden = 0, ffn = 0;
    int* counts = nullptr;       // [experts]
    int* cursor = nullptr;       // [experts]: next free row of each group
    int* sorted_slot = nullptr;  // [slots]: the slot behind each row of the sorted problem
    Element* x_sorted = nullptr; // [slots, hidden]
    Element* y_sorted = nullptr; // [slots, ffn]
    GroupShape* shapes = nullptr;
    const Element** ptr_a = nullptr;
    const Element** ptr_b = nullptr;
    Element** ptr_d = nullptr;
    StrideA* stride_a = nullptr;
    StrideB* stride_b = nullptr;
    StrideD* stride_d = nullptr;
    void* workspace = nullptr;
    int64_t slots() const { return tokens * top_k; }
};
static Plan g_plan;
static Gemm g_gemm;
static cutlass::KernelHardwareInfo g_hw;  // SM count and cluster occupancy, queried once in kp_setup

__global__ void count_slots(const int* topk_idx, int64_t slots, int experts, int* counts) {
    int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < slots) {
        int e = topk_idx[s];
        if (e >= 0 && e < experts) atomicAdd(&counts[e], 1);
    }
}

// One block: the exclusive scan of the counts gives each expert's first row; the group's
// problem size and pointers follow from it.
__global__ void plan_groups(const int* counts, int experts, int* cursor, const Element* w, Element* x_sorted,
                            Element* y_sorted, int hidden, int ffn, GroupShape* shapes, const Element** ptr_a,
                            const Element** ptr_b, Element** ptr_d) {
    extern __shared__ int offsets[];
    if (threadIdx.x == 0) {
        int run = 0;
        for (int e = 0; e < experts; ++e) { offsets[e] = run; run += counts[e]; }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < experts; e += blockDim.x) {
        cursor[e] = offsets[e];
        shapes[e] = GroupShape(counts[e], ffn, hidden);
        ptr_a[e] = x_sorted + (int64_t)offsets[e] * hidden;
        ptr_b[e] = w + (int64_t)e * hidden * ffn;
        ptr_d[e] = y_sorted + (int64_t)offsets[e] * ffn;
    }
}

__global__ void place_slots(const int* topk_idx, int64_t slots, int experts, int* cursor, int* sorted_slot) {
    int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < slots) {
        int e = topk_idx[s];
        if (e >= 0 && e < experts) sorted_slot[atomicAdd(&cursor[e], 1)] = (int)s;
    }
}

// Row r of x_sorted = x[token of sorted_slot[r]], 16 bytes per thread.
__global__ void gather_rows(const Element* x, const int* sorted_slot, const int* cursor, int experts, int top_k,
                            int hidden, Element* x_sorted) {
    const int64_t r = blockIdx.x;
    if (r >= cursor[experts - 1]) return;  // rows past the last group's end (out-of-range experts)
    const int64_t t = sorted_slot[r] / top_k;
    const uint4* src = reinterpret_cast<const uint4*>(x + t * hidden);
    uint4* dst = reinterpret_cast<uint4*>(x_sorted + r * hidden);
    for (int i = threadIdx.x; i < hidden / 8; i += blockDim.x) dst[i] = src[i];
}

__global__ void scatter_rows(const Element* y_sorted, const int* sorted_slot, const int* cursor, int experts, int ffn,
                             Element* y) {
    const int64_t r = blockIdx.x;
    if (r >= cursor[experts - 1]) return;
    const uint4* src = reinterpret_cast<const uint4*>(y_sorted + r * ffn);
    uint4* dst = reinterpret_cast<uint4*>(y + (int64_t)sorted_slot[r] * ffn);
    for (int i = threadIdx.x; i < ffn / 8; i += blockDim.x) dst[i] = src[i];
}

__global__ void zero_output(uint4* y, int64_t n16) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n16) y[i] = make_uint4(0, 0, 0, 0);
}

static int check_shapes(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (n_in != 3 || n_out != 1) return 1;
    if (in[0].dtype != KP_BF16 || in[1].dtype != KP_I32 || in[2].dtype != KP_BF16 || out[0].dtype != KP_BF16) return 2;
    if (in[0].ndim != 2 || in[1].ndim != 2 || in[2].ndim != 3 || out[0].ndim != 3) return 3;
    const int64_t T = in[0].shape[0], H = in[0].shape[1], K = in[1].shape[1], F = in[2].shape[2];
    if (in[1].shape[0] != T || in[2].shape[1] != H || out[0].shape[0] != T || out[0].shape[1] != K || out[0].shape[2] != F) return 4;
    if (H % kAlignment || F % kAlignment) return 5;
    if (T * K > 2147483647LL || H * F > 2147483647LL) return 6;
    return 0;
}

static typename Gemm::Arguments arguments(const Plan& p) {
    typename Gemm::Arguments args{
        cutlass::gemm::GemmUniversalMode::kGrouped,
        {(int)p.experts, p.shapes, nullptr},  // sizes live on the device only
        {p.ptr_a, p.stride_a, p.ptr_b, p.stride_b},
        {{}, nullptr, p.stride_d, p.ptr_d, p.stride_d},
        g_hw};
    args.epilogue.thread.alpha = 1.0f;
    args.epilogue.thread.beta = 0.0f;
    return args;
}

template <class T>
static bool device_alloc(T*& p, int64_t n) {
    return cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T)) == cudaSuccess;
}

template <class S>
static bool fill_strides(S* dst, int64_t n, S value) {
    S* host = static_cast<S*>(malloc(n * sizeof(S)));
    if (!host) return false;
    for (int64_t i = 0; i < n; ++i) host[i] = value;
    bool ok = cudaMemcpy(dst, host, n * sizeof(S), cudaMemcpyHostToDevice) == cudaSuccess;
    free(host);
    return ok;
}

}  // namespace moe_grouped

using namespace moe_grouped;

KP_EXPORT void kp_teardown(void);

KP_EXPORT int kp_setup(const kp_tensor* in, int n_in, const kp_tensor* out, int n_out) {
    if (int bad = check_shapes(in, n_in, out, n_out)) return bad;
    Plan& p = g_plan;
    p.tokens = in[0].shape[0];
    p.hidden = in[0].shape[1];
    p.top_k = in[1].shape[1];
    p.experts = in[2].shape[0];
    p.ffn = in[2].shape[2];
    const int64_t S = p.slots(), E = p.experts;
    bool ok = device_alloc(p.counts, E) && device_alloc(p.cursor, E) && device_alloc(p.sorted_slot, S) &&
              device_alloc(p.x_sorted, S * p.hidden) && device_alloc(p.y_sorted, S * p.ffn) && device_alloc(p.shapes, E) &&
              device_alloc(p.ptr_a, E) && device_alloc(p.ptr_b, E) && device_alloc(p.ptr_d, E) &&
              device_alloc(p.stride_a, E) && device_alloc(p.stride_b, E) && device_alloc(p.stride_d, E);
    if (!ok) return 100;
    // Every group has the same strides (its M only changes the row count, not the pitch).
    ok = fill_strides(p.stride_a, E, cutlass::make_cute_packed_stride(StrideA{}, make_shape((int)S, (int)p.hidden, 1))) &&
         fill_strides(p.stride_b, E, cutlass::make_cute_packed_stride(StrideB{}, make_shape((int)p.ffn, (int)p.hidden, 1))) &&
         fill_strides(p.stride_d, E, cutlass::make_cute_packed_stride(StrideD{}, make_shape((int)S, (int)p.ffn, 1)));
    if (!ok) return 101;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 101;
    g_hw = cutlass::KernelHardwareInfo::make_kernel_hardware_info<Kernel>(device);
    auto args = arguments(p);
    if (Gemm::can_implement(args) != cutlass::Status::kSuccess) return 102;
    size_t bytes = Gemm::get_workspace_size(args);
    if (bytes && cudaMalloc(&p.workspace, bytes) != cudaSuccess) return 103;
    return 0;
}

KP_EXPORT void kp_teardown(void) {
    Plan& p = g_plan;
    void* all[] = {p.counts, p.cursor, p.sorted_slot, p.x_sorted, p.y_sorted, p.shapes, p.ptr_a, p.ptr_b, p.ptr_d,
                   p.stride_a, p.stride_b, p.stride_d, p.workspace};
    for (void* q : all) cudaFree(q);
    g_plan = Plan{};
}

KP_EXPORT int kp_forward(const kp_tensor* in, int n_in, kp_tensor* out, int n_out, cudaStream_t stream) {
    if (int bad = check_shapes(in, n_in, out, n_out)) return bad;
    const Plan& p = g_plan;
    const int64_t S = p.slots();
    const int E = (int)p.experts;
    const auto* x = static_cast<const Element*>(in[0].data);
    const auto* idx = static_cast<const int*>(in[1].data);
    const auto* w = static_cast<const Element*>(in[2].data);
    auto* y = static_cast<Element*>(out[0].data);
    const unsigned slot_blocks = (unsigned)((S + 255) / 256);
    const int64_t y16 = S * p.ffn / 8;
    zero_output<<<(unsigned)((y16 + 255) / 256), 256, 0, stream>>>(reinterpret_cast<uint4*>(y), y16);  // rows routed nowhere
    cudaMemsetAsync(p.counts, 0, E * sizeof(int), stream);
    count_slots<<<slot_blocks, 256, 0, stream>>>(idx, S, E, p.counts);
    plan_groups<<<1, 128, E * sizeof(int), stream>>>(p.counts, E, p.cursor, w, p.x_sorted, p.y_sorted, (int)p.hidden,
                                                     (int)p.ffn, p.shapes, p.ptr_a, p.ptr_b, p.ptr_d);
    place_slots<<<slot_blocks, 256, 0, stream>>>(idx, S, E, p.cursor, p.sorted_slot);
    gather_rows<<<(unsigned)S, 256, 0, stream>>>(x, p.sorted_slot, p.cursor, E, (int)p.top_k, (int)p.hidden, p.x_sorted);
    auto args = arguments(p);
    if (g_gemm.initialize(args, p.workspace, stream) != cutlass::Status::kSuccess) return 104;
    if (g_gemm.run(stream) != cutlass::Status::kSuccess) return 105;
    scatter_rows<<<(unsigned)S, 128, 0, stream>>>(p.y_sorted, p.sorted_slot, p.cursor, E, (int)p.ffn, y);
    return (int)cudaGetLastError();
}
