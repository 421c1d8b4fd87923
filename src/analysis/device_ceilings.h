// The device's peak rates and limits. Another part of kernelpro measures real ones; the H200
// datasheet values below are the fallback (docs/device.md). FLOP/s figures are at
// sm_clock_hz; the roofline rescales them to the clock measured during the profile, because heavy
// kernels run well below the maximum clock (1.59-1.80 GHz for tensor work on H200).
#pragma once

#include <string>

namespace kp::analysis {

struct DeviceCeilings {
    std::string name;
    double sm_clock_hz = 0;          // clock at which the FLOP/s figures hold
    double dram_bytes_per_second = 0;
    double l2_bytes_per_second = 0;
    double l1_bytes_per_second = 0;  // aggregate over all SMs
    double fp32_flops = 0;           // FFMA counted as 2
    double fp64_flops = 0;
    double fp16_flops = 0;           // non-tensor HFMA2 (packed, 4 FLOP per instruction)
    double bf16_tensor_flops = 0;    // dense wgmma (HGMMA); fp16 is the same
    double tf32_tensor_flops = 0;
    double fp8_tensor_flops = 0;
    double int8_tensor_ops = 0;
    double fp64_tensor_flops = 0;
    int sm_count = 0;
    double l2_bytes = 0;
    double shared_bytes_per_sm = 0;
    int registers_per_sm = 0;
    int max_warps_per_sm = 0;
    int max_blocks_per_sm = 0;
};

// H200 SXM: per-cycle peaks measured with ncu's .peak_sustained counters, times 1.98 GHz.
DeviceCeilings h200_datasheet_ceilings();

}  // namespace kp::analysis
