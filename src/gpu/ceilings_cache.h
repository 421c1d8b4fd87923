// Where `kernelpro device` keeps a GPU's measured ceilings, and reading them back. Apart from
// ceilings.h because the kernelpro-ceilings helper, built on its own, needs the types only.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"
#include "gpu/ceilings.h"

namespace kp::gpu {

// The driver version that names this GPU's ceilings cache: NVML's ("580.159.04"), else "cuda" and
// the CUDA driver API version ("cuda13.0") when NVML cannot be read.
std::string ceilings_driver_version(int cuda_driver_version);

// cache_directory()/ceilings/<gpu name>__<driver version>.json, with unsafe characters replaced.
std::filesystem::path ceilings_cache_path(const std::filesystem::path& cache_root, const std::string& gpu_name,
                                          const std::string& driver_version);

// A ceilings file (`kernelpro device --json` output, or its cache file), read and parsed.
Result<DeviceCeilings> read_ceilings_file(const std::filesystem::path& path);

}  // namespace kp::gpu
