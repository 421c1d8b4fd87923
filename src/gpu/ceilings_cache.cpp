#include "gpu/ceilings_cache.h"

#include <cctype>

#include "common/files.h"
#include "gpu/device_info.h"
#include "gpu/nvml_library.h"

namespace kp::gpu {

std::string ceilings_driver_version(int cuda_driver_version) {
    std::string version;
    if (auto nvml = Nvml::load()) version = nvml->driver_version();
    return version.empty() ? "cuda" + format_cuda_version(cuda_driver_version) : version;
}

std::filesystem::path ceilings_cache_path(const std::filesystem::path& cache_root, const std::string& gpu_name,
                                          const std::string& driver_version) {
    auto safe = [](std::string text) {
        for (char& ch : text)
            if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '_';
        return text.empty() ? std::string("unknown") : text;
    };
    return cache_root / "ceilings" / (safe(gpu_name) + "__" + safe(driver_version) + ".json");
}

Result<DeviceCeilings> read_ceilings_file(const std::filesystem::path& path) {
    auto text = read_text_file(path);
    if (!text) return text.error();
    return parse_ceilings_json(*text);
}

}  // namespace kp::gpu
