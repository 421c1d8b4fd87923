// The ceilings a profile compares against and what it knows of the GPU it runs on: this GPU's
// measured ceilings from the `kernelpro device` cache, else the datasheet values; a
// --ceilings file replaces either.
#pragma once

#include <filesystem>
#include <string>

#include "analysis/device_ceilings.h"
#include "gpu/ceilings.h"
#include "gpu/occupancy.h"

namespace kp::diagnose {

struct SessionCeilings {
    analysis::DeviceCeilings value = analysis::h200_datasheet_ceilings();
    std::string source;
    gpu::OccupancyLimits limits = gpu::OccupancyLimits::sm90();
    bool gpu_present = false;
    std::string gpu_error;
    std::string device_identity;  // GPU name and driver: part of every cache key
};

SessionCeilings load_session_ceilings(const std::filesystem::path& ceilings_file);

// The measured ceilings as the roofline reads them: FLOP/s figures all at one reference clock (the
// FP32 measurement's), the datasheet where something was not measured.
analysis::DeviceCeilings analysis_ceilings(const gpu::DeviceCeilings& measured);

}  // namespace kp::diagnose
