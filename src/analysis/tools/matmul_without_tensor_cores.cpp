// GEMM-like work (many multiply-adds per byte, fed by loads) running on FFMA instead of tensor cores.
// The KernelPro paper's SASS tool caught kernels that silently fell back to scalar code; this is it.
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
// Tensor-core kernels reach about 75-80% of peak at best and our floor is optimistic: cap the gain.
constexpr double kMaxGain = 0.90;

class MatmulWithoutTensorCoresTool final : public DescribedTool {
public:
    MatmulWithoutTensorCoresTool()
        : DescribedTool("matmul_without_tensor_cores", every_class(),
                        DataNeeds{{"sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__ops_path_tensor_src_tf32_dst_fp32.sum"},
                                  /*sass=*/true, false, false, false, false},
                        "no tensor instructions, FFMA fed by loads (>= 1 load per 8 FFMA in SASS), intensity >= 2x the FP32 ridge "
                        "(28-33 FLOP/B on H200; task FLOPs and bytes if both known, else achieved); gain = 1 - TF32 tensor floor / time, capped at 90%") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& sass = ctx.data().sass;
        if (!sass || sass->tensor_instructions > 0 || sass->ffma == 0) return std::nullopt;
        int loads = sass->global_loads.total() + sass->shared_loads.total() + sass->generic_loads.total();
        if (loads < sass->ffma * kMinLoadsPerFma) return std::nullopt;
        const RooflineResult& r = ctx.roofline();
        const TaskBounds& task = ctx.data().task;
        // Intensity from one source: the task's minimal FLOPs and bytes when it states both, else
        // what the kernel did (mixing the two mismeasures a kernel that works on part of its input).
        const bool from_task = task.min_flops && task.min_bytes;
        double flops = from_task ? *task.min_flops : r.flops.fp32;
        double bytes = from_task ? *task.min_bytes : r.dram_bytes;
        if (flops <= 0 || bytes <= 0) return std::nullopt;
        double intensity = flops / bytes;
        const gpu::DeviceCeilings& c = ctx.data().ceilings;
        const double dram = c.at_reference_clock(gpu::ceiling_name::dram);
        const double tf32 = c.at_reference_clock(gpu::ceiling_name::tensor_tf32);
        double ridge = dram > 0 ? c.at_reference_clock(gpu::ceiling_name::fp32) / dram : 14.0;
        if (intensity < kRidgeMultiple * ridge) return std::nullopt;
        // Most FP32 FLOPs should be fused multiply-adds (a GEMM inner product).
        if (r.flops.fp32 <= 0) return std::nullopt;

        if (tf32 <= 0 || dram <= 0) return std::nullopt;  // no tensor-core or DRAM rate to compare against
        const double reference_clock = c.reference_clock_hz();
        double scale = reference_clock > 0 && r.sm_clock_hz > 0 ? r.sm_clock_hz / reference_clock : 1.0;
        double tensor_floor = std::max(flops / (tf32 * scale), bytes / dram);
        Finding f;
        f.estimated_gain = std::min(kMaxGain, clamp01(1.0 - tensor_floor / r.duration_seconds));
        f.evidence.push_back(metric_evidence(from_task ? "task FLOP per byte" : "achieved FLOP per DRAM byte", intensity));
        f.evidence.push_back(metric_evidence("FP32 speed-of-light fraction", r.fp32_sol));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "SASS", std::to_string(sass->ffma) + " FFMA, " + std::to_string(loads) +
                                                                              " loads, 0 tensor instructions (HMMA/HGMMA)"));
        auto is_ffma = [](const profile::SassInstruction& i) { return i.base_opcode() == "FFMA"; };
        for (auto& e : ctx.sass_evidence(is_ffma, 1)) f.evidence.push_back(std::move(e));
        std::string where = ctx.first_source_line(is_ffma);
        f.summary = "GEMM-like work (" + format_number(intensity) + " FLOP/B) runs on FFMA at " + format_percent(r.fp32_sol) +
                    " of FP32 peak with no tensor-core instructions" + (where.empty() ? "" : " (inner loop at " + where + ")");
        f.remedies = {rewrite_only(Rewrite::use_tensor_cores)};
        f.guidance = "Tile the product through shared memory and compute it on tensor cores (wmma or mma.sync with TF32/BF16 inputs and "
                     "FP32 accumulation, or a CUTLASS/CuTe WGMMA kernel on sm_90a).";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_matmul_without_tensor_cores_tool() { return std::make_unique<MatmulWithoutTensorCoresTool>(); }

}  // namespace kp::analysis
