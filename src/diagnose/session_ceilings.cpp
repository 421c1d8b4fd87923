#include "diagnose/session_ceilings.h"

#include "common/files.h"
#include "gpu/ceilings_cache.h"
#include "gpu/cuda_driver.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

analysis::DeviceCeilings analysis_ceilings(const gpu::DeviceCeilings& c) {
    analysis::DeviceCeilings out = analysis::h200_datasheet_ceilings();
    out.name = c.label.empty() ? c.device.name : c.label;
    if (auto v = c.value("dram_copy")) out.dram_bytes_per_second = *v;
    if (auto v = c.value("l2_read")) out.l2_bytes_per_second = *v;
    if (auto v = c.value("fp32_fma")) {
        out.fp32_flops = *v;
        // The FLOP/s figures hold at the clock measured while they ran.
        if (const gpu::Ceiling* f = c.find("fp32_fma"); f && f->sm_clock_mhz_mean) out.sm_clock_hz = *f->sm_clock_mhz_mean * 1e6;
    }
    // Every FLOP/s ceiling is expressed at out.sm_clock_hz (the roofline rescales to the clock a
    // kernel ran at): one measured at another clock (tensor work runs near 1.6 GHz on the H200) is
    // rescaled from its own, else it would be scaled down twice.
    auto at_reference_clock = [&](const char* name, double value) {
        const gpu::Ceiling* f = c.find(name);
        if (!f || !f->sm_clock_mhz_mean || *f->sm_clock_mhz_mean <= 0 || out.sm_clock_hz <= 0) return value;
        return value * out.sm_clock_hz / (*f->sm_clock_mhz_mean * 1e6);
    };
    if (auto v = c.value("fp64_fma")) out.fp64_flops = at_reference_clock("fp64_fma", *v);
    if (auto v = c.value("tensor_bf16")) out.bf16_tensor_flops = at_reference_clock("tensor_bf16", *v);
    const gpu::DeviceInfo& d = c.device;
    if (d.sm_count > 0) out.sm_count = d.sm_count;
    if (d.l2_cache_bytes > 0) out.l2_bytes = static_cast<double>(d.l2_cache_bytes);
    if (d.shared_memory_per_sm_bytes > 0) out.shared_bytes_per_sm = static_cast<double>(d.shared_memory_per_sm_bytes);
    if (d.registers_per_sm > 0) out.registers_per_sm = d.registers_per_sm;
    if (d.max_warps_per_sm > 0) out.max_warps_per_sm = d.max_warps_per_sm;
    if (d.max_blocks_per_sm > 0) out.max_blocks_per_sm = d.max_blocks_per_sm;
    return out;
}

namespace {

SessionCeilings ceilings_of_this_gpu() {
    SessionCeilings c;
    auto driver = gpu::CudaDriver::load();
    if (!driver) {
        c.gpu_error = driver.error().message;
        c.source = "datasheet (H200 SXM; " + c.gpu_error + ")";
        return c;
    }
    auto info = driver->device_info(0);
    if (!info) {
        c.gpu_error = info.error().message;
        c.source = "datasheet (H200 SXM; " + c.gpu_error + ")";
        return c;
    }
    c.gpu_present = true;
    c.limits = gpu::OccupancyLimits::from_device(*info);
    const std::string driver_version = gpu::ceilings_driver_version(driver->driver_version());
    c.device_identity = info->name + " / driver " + driver_version;
    fs::path path = gpu::ceilings_cache_path(cache_directory(), info->name, driver_version);
    if (auto parsed = gpu::read_ceilings_file(path)) {
        c.value = analysis_ceilings(*parsed);
        c.source = "measured (" + path.string() + ")";
        return c;
    }
    c.source = "datasheet (H200 SXM; run `kernelpro device` to measure " + info->name + ")";
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
    c.value = analysis_ceilings(*parsed);
    if (parsed->device.max_warps_per_sm > 0) c.limits = gpu::OccupancyLimits::from_device(parsed->device);
    c.source = "measured (" + file.string() + ")";
    if (c.device_identity.empty()) c.device_identity = parsed->device.name;
}

}  // namespace

SessionCeilings load_session_ceilings(const fs::path& ceilings_file) {
    SessionCeilings c = ceilings_of_this_gpu();
    if (!ceilings_file.empty()) apply_ceilings_file(c, ceilings_file);
    return c;
}

}  // namespace kp::diagnose
