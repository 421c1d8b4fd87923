// Which GPU architecture candidates are compiled for: the device's own (read with nvidia-smi, so
// no CUDA library is loaded), sm_90a on Hopper, and sm_90a as the default where no GPU is present.
#pragma once

#include <string>
#include <vector>

namespace kp {

struct GpuArch {
    std::string name = "sm_90a";  // e.g. sm_90a, sm_80
    bool detected = false;        // false: the default, no GPU seen
    // nvcc flags selecting it, e.g. -gencode=arch=compute_90a,code=sm_90a
    std::vector<std::string> nvcc_flags() const;
};

// Compute capability "9.0" -> sm_90a (Hopper's arch-specific target, needed for wgmma), "8.9" -> sm_89.
GpuArch arch_from_compute_capability(const std::string& capability);

// The arch-specific variant CUTLASS candidates need (sm_90 -> sm_90a, sm_100 -> sm_100a: WGMMA,
// TMA and tcgen05 exist only there); architectures before sm_90 have none and stay as they are.
GpuArch arch_specific(const GpuArch& arch);

// $KERNELPRO_ARCH (e.g. sm_90a) wins; else the first GPU's compute capability; else sm_90a.
GpuArch detect_gpu_arch();

}  // namespace kp
