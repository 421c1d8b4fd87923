// GEMM-like work (many multiply-adds per byte, fed by loads) running on FFMA instead of tensor cores.
// The KernelPro paper's SASS tool caught kernels that silently fell back to scalar code; this is it.
// FFMA count alone is no evidence of a matrix product: a kernel that multiply-adds into a spilled
// per-thread array, or a register-only polynomial, does as many. A matrix product reads its
// operands from global or shared memory, re-reads each loaded element many times, and does far
// more FLOPs than it moves bytes; all of that must hold.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Tensor cores pay only for work that would be compute-bound on FP32: we ask for twice the FP32
// ridge (2 x 13.9 = 28 FLOP/B on H200). Below it a perfect FP32 kernel is within 2x of the memory
// floor anyway. GEMMs of useful size sit far above (2048^3 FP32: 341 FLOP/B); elementwise and
// gather kernels far below.
constexpr double kRidgeMultiple = 2.0;
// The multiply-adds must be fed from memory (GEMM) rather than a serial chain on registers.
constexpr double kMinLoadsPerFma = 1.0 / 8.0;
// A GEMM's operands come from global or shared memory. When a quarter or more of the loads read
// local memory, the multiply-adds work on a spilled or dynamically indexed per-thread array
// (register_spills' finding), not on matrix tiles.
constexpr double kMaxLocalLoadShare = 0.25;
// A GEMM's inner product is fused: at least half of its FP32 FLOPs are FFMA.
constexpr double kMinFusedFlopShare = 0.5;
// Reuse: a tiled GEMM reads each element from L1 or shared memory once per use in its tile
// (16-128 times), a naive one N times. Loads delivering under 4x the bytes DRAM supplied are a
// stream, whatever the FLOPs per byte.
constexpr double kMinReuse = 4.0;
// Tensor-core kernels reach about 75-80% of peak at best and our floor is optimistic: cap the gain.
constexpr double kMaxGain = 0.90;

class MatmulWithoutTensorCoresTool final : public DescribedTool {
public:
    MatmulWithoutTensorCoresTool()
        : DescribedTool("matmul_without_tensor_cores", every_class(),
                        DataNeeds{{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
                                   "smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_shared_ld.sum",
                                   "smsp__sass_inst_executed_op_local_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                   "dram__bytes_read.sum"},
                                  /*sass=*/true, false, false, false, false},
                        "evidence of a matrix product: no tensor instructions, FFMA fed by global/shared loads (>= 1 per 8 FFMA "
                        "in SASS), < 25% of loads from local memory, FFMA >= half the FP32 FLOPs, loads deliver >= 4x the DRAM "
                        "bytes (reuse), intensity >= 2x the FP32 ridge (28-33 FLOP/B on H200; task FLOPs and bytes if both "
                        "known, else achieved); gain = 1 - TF32 tensor floor / time, capped at 90%") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        auto evidence = matrix_product_evidence(ctx);
        if (!evidence) return std::nullopt;
        const RooflineResult& r = ctx.roofline();
        const gpu::DeviceCeilings& c = ctx.data().ceilings;
        const double dram = c.at_reference_clock(gpu::ceiling_name::dram);
        const double tf32 = c.at_reference_clock(gpu::ceiling_name::tensor_tf32);
        if (tf32 <= 0 || dram <= 0) return std::nullopt;  // no tensor-core or DRAM rate to compare against
        const double reference_clock = c.reference_clock_hz();
        double scale = reference_clock > 0 && r.sm_clock_hz > 0 ? r.sm_clock_hz / reference_clock : 1.0;
        double tensor_floor = std::max(evidence->flops / (tf32 * scale), evidence->bytes / dram);
        Finding f;
        f.estimated_gain = std::min(kMaxGain, clamp01(1.0 - tensor_floor / r.duration_seconds));
        const auto& sass = *ctx.data().sass;
        const int loads = sass.global_loads.total() + sass.shared_loads.total() + sass.generic_loads.total();
        f.evidence.push_back(metric_evidence(evidence->from_task ? "task FLOP per byte" : "achieved FLOP per DRAM byte", evidence->intensity));
        if (evidence->reuse > 0) f.evidence.push_back(metric_evidence("bytes loaded per DRAM byte read (reuse)", evidence->reuse));
        f.evidence.push_back(metric_evidence("FP32 speed-of-light fraction", r.fp32_sol));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "SASS", std::to_string(sass.ffma) + " FFMA, " + std::to_string(loads) +
                                                                              " loads, 0 tensor instructions (HMMA/HGMMA)"));
        auto is_ffma = [](const profile::SassInstruction& i) { return i.base_opcode() == "FFMA"; };
        for (auto& e : ctx.sass_evidence(is_ffma, 1)) f.evidence.push_back(std::move(e));
        std::string where = ctx.culprit_source_line(is_ffma);
        f.summary = "GEMM-like work (" + format_number(evidence->intensity) + " FLOP/B) runs on FFMA at " + format_percent(r.fp32_sol) +
                    " of FP32 peak with no tensor-core instructions" + (where.empty() ? "" : " (inner loop at " + where + ")");
        f.remedies = {rewrite_only(Rewrite::use_tensor_cores)};
        f.guidance = "Tile the product through shared memory and compute it on tensor cores (wmma or mma.sync with TF32/BF16 inputs and "
                     "FP32 accumulation, or a CUTLASS/CuTe WGMMA kernel on sm_90a).";
        return f;
    }
};

}  // namespace

std::optional<MatrixProductEvidence> matrix_product_evidence(const ToolContext& ctx) {
    const auto& sass = ctx.data().sass;
    if (!sass || sass->tensor_instructions > 0 || sass->ffma == 0) return std::nullopt;
    const int loads = sass->global_loads.total() + sass->shared_loads.total() + sass->generic_loads.total();
    if (loads < sass->ffma * kMinLoadsPerFma) return std::nullopt;
    const auto& m = ctx.metrics();
    // Where the operands come from: executed load instructions when counted, else the SASS.
    auto global_ld = m.get("smsp__sass_inst_executed_op_global_ld.sum");
    auto shared_ld = m.get("smsp__sass_inst_executed_op_shared_ld.sum");
    auto local_ld = m.get("smsp__sass_inst_executed_op_local_ld.sum");
    const bool executed = local_ld && (global_ld || shared_ld);
    double operand_loads = executed ? global_ld.value_or(0) + shared_ld.value_or(0) : loads;
    double local_loads = executed ? *local_ld : sass->local_loads;
    if (local_loads > 0 && local_loads >= kMaxLocalLoadShare * (operand_loads + local_loads)) return std::nullopt;

    const RooflineResult& r = ctx.roofline();
    if (r.flops.fp32 <= 0) return std::nullopt;
    auto ffma = ctx.thread_instructions("ffma");
    if (ffma && 2 * *ffma < kMinFusedFlopShare * r.flops.fp32) return std::nullopt;

    MatrixProductEvidence e;
    // Reuse: the bytes global loads delivered (L1 sectors, less the wasted part of uncoalesced
    // ones) and shared loads delivered (4 B per lane at least), against the distinct bytes DRAM read.
    auto dram_read = m.get("dram__bytes_read.sum");
    auto use = ctx.sector_use();
    if (use.known && dram_read && *dram_read > 0) {
        double delivered = (use.load_sectors - use.excess_load_sectors) * 32.0 + shared_ld.value_or(0) * 32 * 4;
        e.reuse = delivered / *dram_read;
        if (e.reuse < kMinReuse) return std::nullopt;
    }

    // Intensity from one source: the task's minimal FLOPs and bytes when it states both, else
    // what the kernel did (mixing the two mismeasures a kernel that works on part of its input).
    const TaskBounds& task = ctx.data().task;
    e.from_task = task.min_flops && task.min_bytes;
    e.flops = e.from_task ? *task.min_flops : r.flops.fp32;
    e.bytes = e.from_task ? *task.min_bytes : r.dram_bytes;
    if (e.flops <= 0 || e.bytes <= 0) return std::nullopt;
    e.intensity = e.flops / e.bytes;
    const gpu::DeviceCeilings& c = ctx.data().ceilings;
    const double dram = c.at_reference_clock(gpu::ceiling_name::dram);
    double ridge = dram > 0 ? c.at_reference_clock(gpu::ceiling_name::fp32) / dram : 14.0;
    if (e.intensity < kRidgeMultiple * ridge) return std::nullopt;
    return e;
}

std::unique_ptr<MicroTool> make_matmul_without_tensor_cores_tool() { return std::make_unique<MatmulWithoutTensorCoresTool>(); }

}  // namespace kp::analysis
