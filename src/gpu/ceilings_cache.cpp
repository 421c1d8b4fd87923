#include "gpu/ceilings_cache.h"

#include <cctype>

#include "common/files.h"
#include "gpu/datasheets.h"
#include "gpu/device_info.h"
#include "gpu/nvml_library.h"

namespace kp::gpu {

std::string ceilings_driver_label(const std::string& nvml_driver_version, int cuda_driver_version) {
    return nvml_driver_version.empty() ? "cuda" + format_cuda_version(cuda_driver_version) : nvml_driver_version;
}

std::string ceilings_driver_version(int cuda_driver_version) {
    std::string version;
    if (auto nvml = Nvml::load()) version = nvml->driver_version();
    return ceilings_driver_label(version, cuda_driver_version);
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

DeviceCeilings complete_with_datasheet(DeviceCeilings measured) {
    auto datasheet = datasheet_ceilings(measured.device);
    if (!datasheet) return measured;
    for (const Ceiling& rate : datasheet->ceilings) {
        if (measured.value(rate.name)) continue;
        std::erase_if(measured.ceilings, [&](const Ceiling& c) { return c.name == rate.name; });  // skipped ones
        Ceiling added = rate;
        added.method = "not measured: " + rate.method;
        measured.ceilings.push_back(std::move(added));
    }
    return measured;
}

ChosenCeilings ceilings_for_gpu(const std::filesystem::path& cache_root, const DeviceInfo& device, const std::string& driver_version) {
    const auto path = ceilings_cache_path(cache_root, device.name, driver_version);
    if (auto measured = read_ceilings_file(path)) return {complete_with_datasheet(std::move(*measured)), "measured (" + path.string() + ")"};
    if (auto datasheet = datasheet_ceilings(device)) {
        // The text first: the braced initializer moves the ceilings (and their label) out before
        // it evaluates the second member.
        std::string why = "datasheet (" + datasheet->label + "; run `kernelpro device` to measure " + device.name + ")";
        return {std::move(*datasheet), std::move(why)};
    }
    return {std::nullopt, "none: kernelpro has no datasheet for " + device.name +
                              " and its ceilings were not measured (run `kernelpro device`)"};
}

}  // namespace kp::gpu
