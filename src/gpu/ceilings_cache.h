// Where `kernelpro device` keeps a GPU's measured ceilings, reading them back, and the choice every
// user of the device model makes the same way: measured ceilings when cached (completed by the
// GPU's datasheet for the rates the helper does not measure), else the GPU's datasheet, else none.
// Apart from ceilings.h because the kernelpro-ceilings helper, built on its own, needs the types only.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/result.h"
#include "gpu/ceilings.h"

namespace kp::gpu {

// The driver version that names a GPU's ceilings cache: NVML's ("580.159.04"), else "cuda" and the
// CUDA driver API version ("cuda13.0") when NVML cannot be read.
std::string ceilings_driver_label(const std::string& nvml_driver_version, int cuda_driver_version);
// The same, asking NVML on this machine.
std::string ceilings_driver_version(int cuda_driver_version);

// cache_directory()/ceilings/<gpu name>__<driver version>.json, with unsafe characters replaced.
std::filesystem::path ceilings_cache_path(const std::filesystem::path& cache_root, const std::string& gpu_name,
                                          const std::string& driver_version);

// A ceilings file (`kernelpro device --json` output, or its cache file), read and parsed.
Result<DeviceCeilings> read_ceilings_file(const std::filesystem::path& path);

// Measured ceilings with the rates the helper does not measure (L1, FP16, TF32, FP8 ...) taken
// from the datasheet of their device, when it has one; each added rate says so in its method.
DeviceCeilings complete_with_datasheet(DeviceCeilings measured);

// The ceilings to compare against on `device` and where they come from ("measured (PATH)",
// "datasheet (NVIDIA H200 ...)"); no ceilings, and a source that says why, for a GPU that has
// neither measured ceilings nor a datasheet table.
struct ChosenCeilings {
    std::optional<DeviceCeilings> ceilings;
    std::string source;
};
ChosenCeilings ceilings_for_gpu(const std::filesystem::path& cache_root, const DeviceInfo& device, const std::string& driver_version);

}  // namespace kp::gpu
