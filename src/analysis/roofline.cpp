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

double peak_for(const DeviceCeilings& c, FlopPrecision precision) {
    switch (precision) {
        case FlopPrecision::fp32: return c.fp32_flops;
        case FlopPrecision::fp64: return c.fp64_flops;
        case FlopPrecision::fp16: return c.fp16_flops;
        case FlopPrecision::bf16_tensor: return c.bf16_tensor_flops;
        case FlopPrecision::tf32_tensor: return c.tf32_tensor_flops;
        case FlopPrecision::fp8_tensor: return c.fp8_tensor_flops;
    }
    return c.fp32_flops;
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
    MetricReader m(&*data.metrics);
    const DeviceCeilings& c = data.ceilings;
    RooflineResult r;

    auto duration_ns = m.get("gpu__time_duration.sum");
    if (!duration_ns || *duration_ns <= 0) return make_error("roofline: gpu__time_duration.sum missing for " + data.kernel_name);
    r.duration_seconds = *duration_ns * 1e-9;
    r.sm_clock_hz = m.first_of({"sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second",
                                "smsp__cycles_elapsed.avg.per_second"}).value_or(c.sm_clock_hz);
    const double clock_scale = c.sm_clock_hz > 0 ? r.sm_clock_hz / c.sm_clock_hz : 1.0;
    const double t = r.duration_seconds;

    // FLOPs by precision.
    auto inst = [&](std::string_view op) { return thread_inst(m, op).value_or(0.0); };
    r.flops.fp32 = inst("fadd") + inst("fmul") + 2 * inst("ffma");
    r.flops.fp64 = inst("dadd") + inst("dmul") + 2 * inst("dfma");
    r.flops.fp16 = 2 * inst("hadd") + 2 * inst("hmul") + 4 * inst("hfma");
    const std::array<std::pair<const char*, double>, 4> tensor_paths = {{
        {"sm__ops_path_tensor_src_bf16_dst_fp32", c.bf16_tensor_flops},
        {"sm__ops_path_tensor_src_fp16", c.bf16_tensor_flops},
        {"sm__ops_path_tensor_src_tf32_dst_fp32", c.tf32_tensor_flops},
        {"sm__ops_path_tensor_src_fp8_sparsity_off", c.fp8_tensor_flops},
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

    r.dram_sol = c.dram_bytes_per_second > 0 ? r.dram_bytes / (c.dram_bytes_per_second * t) : 0;
    r.l2_sol = c.l2_bytes_per_second > 0 ? r.l2_bytes / (c.l2_bytes_per_second * t) : 0;
    r.l1_sol = c.l1_bytes_per_second > 0 ? r.l1_bytes / (c.l1_bytes_per_second * clock_scale * t) : 0;
    // The L1 data pipe moves one wavefront per cycle per SM.
    const double sm_cycles = m.get("sm__cycles_elapsed.avg").value_or(r.sm_clock_hz * t);
    double wavefront_sol = 0;
    if (auto sum = m.get("l1tex__data_pipe_lsu_wavefronts.sum")) wavefront_sol = *sum / (std::max(1, c.sm_count) * sm_cycles);
    else if (auto avg = m.get("l1tex__data_pipe_lsu_wavefronts.avg")) wavefront_sol = *avg / sm_cycles;
    else if (auto pct = m.get("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed")) wavefront_sol = *pct / 100.0;
    r.l1_sol = std::max(r.l1_sol, wavefront_sol);

    r.fp32_sol = c.fp32_flops > 0 ? r.flops.fp32 / (c.fp32_flops * clock_scale * t) : 0;
    r.fp64_sol = c.fp64_flops > 0 ? r.flops.fp64 / (c.fp64_flops * clock_scale * t) : 0;
    r.fp16_sol = c.fp16_flops > 0 ? r.flops.fp16 / (c.fp16_flops * clock_scale * t) : 0;

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
        double peak = peak_for(c, data.task.precision) * clock_scale;
        if (peak > 0) floor = std::max(floor, *data.task.min_flops / peak);
    }
    if (data.task.min_bytes && c.dram_bytes_per_second > 0) floor = std::max(floor, *data.task.min_bytes / c.dram_bytes_per_second);
    if (floor > 0) {
        r.floor_seconds = floor;
        r.fraction_of_floor = floor / t;
    }
    return r;
}

}  // namespace kp::analysis
