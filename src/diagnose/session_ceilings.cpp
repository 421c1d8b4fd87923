#include "diagnose/session_ceilings.h"

#include "common/files.h"
#include "gpu/ceilings_cache.h"
#include "gpu/cuda_driver.h"
#include "gpu/datasheets.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

namespace {

SessionCeilings without_a_gpu(const std::string& why) {
    SessionCeilings c;
    c.gpu_error = why;
    c.value = gpu::no_gpu_ceilings(why);
    c.source = "datasheet (" + c.value.label + ")";
    return c;
}

SessionCeilings ceilings_of_this_gpu() {
    auto driver = gpu::CudaDriver::load();
    if (!driver) return without_a_gpu(driver.error().message);
    auto info = driver->device_info(0);
    if (!info) return without_a_gpu(info.error().message);
    SessionCeilings c;
    c.gpu_present = true;
    c.limits = gpu::OccupancyLimits::from_device(*info);
    const std::string driver_version = gpu::ceilings_driver_version(driver->driver_version());
    c.device_identity = info->name + " / driver " + driver_version;
    auto chosen = gpu::ceilings_for_gpu(cache_directory(), *info, driver_version);
    c.source = chosen.source;
    if (chosen.ceilings) c.value = std::move(*chosen.ceilings);
    else c.value.device = *info;  // the limits are known even when the rates are not
    return c;
}

// The ceilings given by file (`kernelpro device --json` output or its cache file) replace the
// cached or datasheet values; the GPU, if any, is still detected.
void apply_ceilings_file(SessionCeilings& c, const fs::path& file) {
    auto parsed = gpu::read_ceilings_file(file);
    if (!parsed) {
        c.source += " (cannot read " + file.string() + ": " + parsed.error().message + ")";
        return;
    }
    c.value = gpu::complete_with_datasheet(std::move(*parsed));
    if (c.value.device.max_warps_per_sm > 0) c.limits = gpu::OccupancyLimits::from_device(c.value.device);
    c.source = "measured (" + file.string() + ")";
    if (c.device_identity.empty()) c.device_identity = c.value.device.name;
}

}  // namespace

SessionCeilings load_session_ceilings(const fs::path& ceilings_file) {
    SessionCeilings c = ceilings_of_this_gpu();
    if (!ceilings_file.empty()) apply_ceilings_file(c, ceilings_file);
    return c;
}

}  // namespace kp::diagnose
