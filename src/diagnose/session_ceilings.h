// The ceilings a profile compares against and what it knows of the GPU it runs on. On a GPU: its
// measured ceilings from the `kernelpro device` cache, else its datasheet, else none (the report
// says so and the roofline stays unknown: no other GPU's numbers are borrowed). Without a GPU:
// the H200's datasheet, which the recorded counters of the CPU tests come from. A --ceilings file
// replaces either.
#pragma once

#include <filesystem>
#include <string>

#include "gpu/ceilings.h"
#include "gpu/occupancy.h"

namespace kp::diagnose {

struct SessionCeilings {
    gpu::DeviceCeilings value;          // not known() when there are none for this GPU
    std::string source;                 // "measured (...)", "datasheet (...)" or "none: ..."
    gpu::OccupancyLimits limits = gpu::OccupancyLimits::sm90();
    bool gpu_present = false;
    std::string gpu_error;
    std::string device_identity;        // GPU name and driver: part of every cache key
};

SessionCeilings load_session_ceilings(const std::filesystem::path& ceilings_file);

}  // namespace kp::diagnose
