#include "analysis/roofline.h"

#include <algorithm>
#include <array>

#include "analysis/metric_reader.h"

namespace kp::analysis {
namespace {

// sm__ copies exist in live runs; the raw page of --set full carries smsp__ ones as rates.
std::optional<double> thread_inst(const MetricReader& m, std::string_view op) {
    std::string suffix = "sass_thread_inst_executed_op_" + std::string(op) + "_pred_on";
    if (auto v = m.counter_sum("sm__" + suffix)) return v;
    return m.counter_sum("smsp__" + suffix);
}

// The ceilings the roofline compares against, all at the reference clock (DRAM and L2 as they are).
struct Peaks {
    double clock_hz, dram, l2, l1, fp32, fp64, fp16, bf16_tensor, tf32_tensor, fp8_tensor;
    int sm_count;
};

Peaks peaks_of(const gpu::DeviceCeilings& c) {
    namespace name = gpu::ceiling_name;
    return {c.reference_clock_hz(),           c.at_reference_clock(name::dram),        c.at_reference_clock(name::l2),
            c.at_reference_clock(name::l1),   c.at_reference_clock(name::fp32),        c.at_reference_clock(name::fp64),
            c.at_reference_clock(name::fp16), c.at_reference_clock(name::tensor_bf16), c.at_reference_clock(name::tensor_tf32),
            c.at_reference_clock(name::tensor_fp8), c.device.sm_count};
}

}  // namespace

std::string_view to_string(RooflineClass value) {
    switch (value) {
        case RooflineClass::memory_bound: return "memory-bound";
        case RooflineClass::compute_bound: return "compute-bound";
        case RooflineClass::latency_bound: return "latency-bound";
        case RooflineClass::balanced: return "balanced";
    }
    return "unknown";
}

std::vector<RooflineClass> all_roofline_classes() {
    return {RooflineClass::memory_bound, RooflineClass::compute_bound, RooflineClass::latency_bound, RooflineClass::balanced};
}

const std::vector<std::string>& roofline_metric_names() {
    static const std::vector<std::string> names = {
        // time and clock: every ceiling is scaled to the clock the kernel actually ran at
        "gpu__time_duration.sum", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second",
        // bytes at each level
        "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum",
        // L1 data-pipe wavefronts: sees shared-memory traffic (and its bank conflicts) that byte counters miss
        "l1tex__data_pipe_lsu_wavefronts.sum",
        // CUDA-core math: FLOP = add + mul + 2 fma; half precision x2 per lane
        "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
        "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
        "sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
        "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
        // tensor op paths: already operation counts (2 per MAC), HMMA and HGMMA together
        "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_src_fp16.sum",
        "sm__ops_path_tensor_src_tf32_dst_fp32.sum", "sm__ops_path_tensor_src_fp8_sparsity_off.sum",
    };
    return names;
}

Result<RooflineResult> classify_roofline(const ProfileData& data) {
    if (!data.metrics) return make_error("roofline: no ncu metrics for " + data.kernel_name);
    if (!data.ceilings.known())
        return make_error("roofline: no ceilings for " + (data.ceilings.device.name.empty() ? std::string("this GPU") : data.ceilings.device.name) +
                          " (no datasheet table and not measured: run `kernelpro device`)");
    MetricReader m(&*data.metrics);
    const Peaks c = peaks_of(data.ceilings);
    RooflineResult r;

    auto duration_ns = m.get("gpu__time_duration.sum");
    if (!duration_ns || *duration_ns <= 0) return make_error("roofline: gpu__time_duration.sum missing for " + data.kernel_name);
    r.duration_seconds = *duration_ns * 1e-9;
    r.sm_clock_hz = m.first_of({"sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second",
                                "smsp__cycles_elapsed.avg.per_second"}).value_or(c.clock_hz);
    const double clock_scale = c.clock_hz > 0 ? r.sm_clock_hz / c.clock_hz : 1.0;
    const double t = r.duration_seconds;

    // FLOPs by precision.
    auto inst = [&](std::string_view op) { return thread_inst(m, op).value_or(0.0); };
    r.flops.fp32 = inst("fadd") + inst("fmul") + 2 * inst("ffma");
    r.flops.fp64 = inst("dadd") + inst("dmul") + 2 * inst("dfma");
    r.flops.fp16 = 2 * inst("hadd") + 2 * inst("hmul") + 4 * inst("hfma");
    const std::array<std::pair<const char*, double>, 4> tensor_paths = {{
        {"sm__ops_path_tensor_src_bf16_dst_fp32", c.bf16_tensor},
        {"sm__ops_path_tensor_src_fp16", c.bf16_tensor},
        {"sm__ops_path_tensor_src_tf32_dst_fp32", c.tf32_tensor},
        {"sm__ops_path_tensor_src_fp8_sparsity_off", c.fp8_tensor},
    }};
    for (const auto& [path, peak] : tensor_paths) {
        double ops = m.counter_sum(path).value_or(0.0);
        r.flops.tensor += ops;
        // Against the wgmma roof: mma.sync (HMMA) kernels top out at 2/3 of it on H200.
        if (peak > 0) r.tensor_sol += ops / (peak * clock_scale * t);
    }

    // Bytes.
    auto dram_read = m.get("dram__bytes_read.sum");
    auto dram_write = m.get("dram__bytes_write.sum");
    if (dram_read || dram_write) r.dram_bytes = dram_read.value_or(0) + dram_write.value_or(0);
    else if (auto total = m.get("dram__bytes.sum")) r.dram_bytes = *total;
    else r.dram_bytes = 32.0 * (m.get_or("dram__sectors_read.sum", 0) + m.get_or("dram__sectors_write.sum", 0));
    if (auto l2 = m.get("lts__t_bytes.sum")) r.l2_bytes = *l2;
    else r.l2_bytes = 32.0 * m.get_or("lts__t_sectors.sum", 0);
    if (auto l1 = m.get("l1tex__t_bytes.sum")) r.l1_bytes = *l1;
    else r.l1_bytes = 32.0 * m.get_or("l1tex__t_sectors.sum", 0);

    r.dram_sol = c.dram > 0 ? r.dram_bytes / (c.dram * t) : 0;
    r.l2_sol = c.l2 > 0 ? r.l2_bytes / (c.l2 * t) : 0;
    r.l1_sol = c.l1 > 0 ? r.l1_bytes / (c.l1 * clock_scale * t) : 0;
    // The L1 data pipe moves one wavefront per cycle per SM.
    const double sm_cycles = m.get("sm__cycles_elapsed.avg").value_or(r.sm_clock_hz * t);
    double wavefront_sol = 0;
    if (auto sum = m.get("l1tex__data_pipe_lsu_wavefronts.sum")) wavefront_sol = *sum / (std::max(1, c.sm_count) * sm_cycles);
    else if (auto avg = m.get("l1tex__data_pipe_lsu_wavefronts.avg")) wavefront_sol = *avg / sm_cycles;
    else if (auto pct = m.get("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed")) wavefront_sol = *pct / 100.0;
    r.l1_sol = std::max(r.l1_sol, wavefront_sol);

    r.fp32_sol = c.fp32 > 0 ? r.flops.fp32 / (c.fp32 * clock_scale * t) : 0;
    r.fp64_sol = c.fp64 > 0 ? r.flops.fp64 / (c.fp64 * clock_scale * t) : 0;
    r.fp16_sol = c.fp16 > 0 ? r.flops.fp16 / (c.fp16 * clock_scale * t) : 0;

    r.achieved_flops_per_second = r.flops.total() / t;
    r.dram_bytes_per_second = r.dram_bytes / t;
    r.arithmetic_intensity = r.dram_bytes > 0 ? r.flops.total() / r.dram_bytes : 0;
    r.waves = m.get("launch__waves_per_multiprocessor");

    const std::array<std::pair<const char*, double>, 3> memory_units = {{{"DRAM", r.dram_sol}, {"L2", r.l2_sol}, {"L1", r.l1_sol}}};
    const std::array<std::pair<const char*, double>, 4> compute_units = {
        {{"FP32", r.fp32_sol}, {"FP64", r.fp64_sol}, {"FP16", r.fp16_sol}, {"tensor", r.tensor_sol}}};
    auto busiest = [](const auto& units) {
        return *std::max_element(units.begin(), units.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    };
    auto [memory_unit, memory_sol] = busiest(memory_units);
    auto [compute_unit, compute_sol] = busiest(compute_units);
    r.memory_sol = memory_sol;
    r.compute_sol = compute_sol;
    r.bound_unit = memory_sol >= compute_sol ? memory_unit : compute_unit;

    auto pct = [](double v) { return std::to_string(static_cast<int>(v * 100 + 0.5)) + "%"; };
    const std::string fractions = "memory " + pct(memory_sol) + " of peak (" + memory_unit + "), compute " + pct(compute_sol) +
                                  " (" + compute_unit + ")";
    if (memory_sol < kBoundThreshold && compute_sol < kBoundThreshold) {
        r.kind = RooflineClass::latency_bound;
        r.bound_unit = "latency";
        r.reason = "neither memory nor compute reaches " + pct(kBoundThreshold) + ": " + fractions;
        if (r.waves && *r.waves < 1.0) r.reason += "; the grid fills less than one wave";
    } else if (memory_sol - compute_sol >= kBalancedGap) {
        r.kind = RooflineClass::memory_bound;
        r.reason = fractions;
    } else if (compute_sol - memory_sol >= kBalancedGap) {
        r.kind = RooflineClass::compute_bound;
        r.reason = fractions;
    } else {
        r.kind = RooflineClass::balanced;
        r.reason = "memory and compute within " + pct(kBalancedGap) + ": " + fractions;
    }

    // Floor time from what the task needs at minimum.
    double floor = 0;
    if (data.task.min_flops) {
        double peak = gpu::flops_ceiling(data.ceilings, data.task.precision) * clock_scale;
        if (peak > 0) floor = std::max(floor, *data.task.min_flops / peak);
    }
    if (data.task.min_bytes && c.dram > 0) floor = std::max(floor, *data.task.min_bytes / c.dram);
    if (floor > 0) {
        r.floor_seconds = floor;
        r.fraction_of_floor = floor / t;
    }
    return r;
}

}  // namespace kp::analysis
