#include "analysis/device_ceilings.h"

namespace kp::analysis {

DeviceCeilings h200_datasheet_ceilings() {
    constexpr double clock = 1.98e9;
    DeviceCeilings c;
    c.name = "NVIDIA H200 SXM (datasheet fallback)";
    c.sm_clock_hz = clock;
    c.dram_bytes_per_second = 1504.0 * 3.2e9;        // 1504 B per DRAM cycle at 3.2 GHz = 4.81 TB/s
    c.l2_bytes_per_second = 188.0 * 32.0 * 1.71e9;   // 188 slices x 32 B at the 1.71 GHz L2 clock
    c.l1_bytes_per_second = 128.0 * 132 * clock;     // 128 B per clock per SM
    c.fp32_flops = 16896.0 * 2 * clock;              // 66.9 TFLOP/s
    c.fp64_flops = 8448.0 * 2 * clock;               // 33.5
    c.fp16_flops = 16896.0 * 4 * clock;              // 133.8
    c.bf16_tensor_flops = 540672.0 * clock;          // 1071 at 1.98 GHz (989 at 1.83)
    c.tf32_tensor_flops = 270336.0 * clock;
    c.fp8_tensor_flops = 1081344.0 * clock;
    c.int8_tensor_ops = 1081344.0 * clock;
    c.fp64_tensor_flops = 33792.0 * clock;
    c.sm_count = 132;
    c.l2_bytes = 62914560;
    c.shared_bytes_per_sm = 233472;
    c.registers_per_sm = 65536;
    c.max_warps_per_sm = 64;
    c.max_blocks_per_sm = 32;
    return c;
}

}  // namespace kp::analysis
