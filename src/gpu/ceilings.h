// Device ceilings: the one model of what a GPU can do that the roofline, the tools and the
// evaluation's floor all read. Measured ceilings are the best rates the GPU reaches on simple,
// known workloads (DRAM copy, L2 reads, FP32/FP64 FMA loops, cuBLAS tensor-core GEMMs), produced
// by the kernelpro-ceilings helper (src/gpu/ceilings/) as JSON; datasheet ceilings come from one
// table per supported GPU (datasheets.h). Both are this type, with the device's limits.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"
#include "gpu/device_info.h"

namespace kp::gpu {

// The names of the rates. The helper measures dram_copy, l2_read, fp32_fma, fp64_fma, tensor_bf16
// and tensor_fp16; the datasheet tables have the others too.
namespace ceiling_name {
inline constexpr const char* dram = "dram_copy";
inline constexpr const char* l2 = "l2_read";
inline constexpr const char* l1 = "l1_read";          // all SMs together
inline constexpr const char* fp32 = "fp32_fma";       // FFMA counted as 2
inline constexpr const char* fp64 = "fp64_fma";
inline constexpr const char* fp16 = "fp16_fma";       // non-tensor HFMA2 (packed, 4 FLOP per instruction)
inline constexpr const char* tensor_bf16 = "tensor_bf16";  // dense
inline constexpr const char* tensor_fp16 = "tensor_fp16";
inline constexpr const char* tensor_tf32 = "tensor_tf32";
inline constexpr const char* tensor_fp8 = "tensor_fp8";
inline constexpr const char* tensor_int8 = "tensor_int8";
inline constexpr const char* tensor_fp64 = "tensor_fp64";
}  // namespace ceiling_name

// "byte/s" for the memory rates, "flop/s" for the others.
const char* ceiling_unit(const std::string& name);
// Whether a rate scales with the SM clock (math pipes and L1 do; DRAM and L2 have clocks of their own).
bool scales_with_sm_clock(const std::string& name);

// One measured (or datasheet) rate.
struct Ceiling {
    std::string name;               // one of ceiling_name
    double value = 0.0;             // in `unit`
    std::string unit;               // "byte/s" or "flop/s"
    std::string method;             // one line: what was run
    double median_seconds = 0.0;    // of one timed repetition
    double min_seconds = 0.0;
    double max_seconds = 0.0;
    int repetitions = 0;
    double work_per_repetition = 0; // bytes or flops
    // NVML samples taken while it ran; for a datasheet figure, the SM clock it is stated at.
    std::optional<double> sm_clock_mhz_mean;
    std::optional<double> sm_clock_mhz_min;
    std::optional<double> power_watts_mean;
    std::vector<std::string> clock_event_reasons;  // seen in any sample
    std::string skipped;            // non-empty when not measured, with the reason
};

struct DeviceCeilings {
    std::string schema = "kernelpro.ceilings.v1";
    std::string source;             // "measured" or "datasheet" (a measured file completed by its datasheet stays "measured")
    std::string label;              // shown to users, e.g. "H200 SXM datasheet values, not measured (no GPU: ...)"
    DeviceInfo device;
    std::string driver_version;     // NVML's string, e.g. "580.159.04"
    int cuda_runtime_version = 0;
    std::string measured_at;        // ISO-8601 UTC
    std::vector<Ceiling> ceilings;

    const Ceiling* find(const std::string& name) const;
    // Convenience: the value of a ceiling, or nullopt when absent or skipped.
    std::optional<double> value(const std::string& name) const;
    // Whether there is anything to compare against (a DRAM or an FP32 rate).
    bool known() const;

    // The SM clock the FLOP/s figures are put at: the FP32 rate's clock; 0 when it is not known
    // (then nothing is rescaled).
    double reference_clock_hz() const;
    // A rate as the roofline reads it, 0 when absent: one that scales with the SM clock is
    // rescaled from the clock it was reached (or stated) at to reference_clock_hz(), so that every
    // such rate holds at one clock (cuBLAS bf16 reaches 807 TFLOP/s near 1.6 GHz on the H200, which
    // is ~999 at 1.98 GHz); the roofline then scales them all to the clock a kernel ran at.
    double at_reference_clock(const std::string& name) const;
};

// What the task's declared FLOPs run on (TaskSpec::cost.precision).
enum class FlopPrecision { fp32, fp64, fp16, bf16_tensor, fp16_tensor, tf32_tensor, fp8_tensor };
// "f32" "f64" "f16" "bf16" "tf32" (f16, bf16 and tf32 on tensor cores); fp32 for anything else.
FlopPrecision flop_precision_of_task(const std::string& precision);
// The fastest rate FLOPs of that precision can run at, at the reference clock: FP64 takes the
// larger of the FMA and tensor (DMMA) rates. 0 when the ceilings lack it.
double flops_ceiling(const DeviceCeilings& ceilings, FlopPrecision precision);

void to_json(nlohmann::json& j, const Ceiling& c);
void from_json(const nlohmann::json& j, Ceiling& c);
void to_json(nlohmann::json& j, const DeviceCeilings& c);
void from_json(const nlohmann::json& j, DeviceCeilings& c);

Result<DeviceCeilings> parse_ceilings_json(const std::string& text);

}  // namespace kp::gpu
