// `--gpus all | 0,2 | N | UUID[,UUID...]`: which GPUs a command evaluates on, parsed (usage errors)
// and then matched against the devices the driver lists (environment errors: more GPUs than the
// machine has, an index or UUID of none of them). One index may be listed twice (`0,0`): two
// workers then share that GPU, which exercises a pool on a one-GPU machine but lets their
// timings disturb each other.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "gpu/device_info.h"

namespace kp::gpu {

struct SelectedGpu {
    int index = 0;     // the device's CUDA ordinal as kernelpro enumerated it
    std::string uuid;  // "GPU-8d1a..." when the driver gives one
    std::string name;  // "NVIDIA H200"
    // CUDA_VISIBLE_DEVICES for this GPU's workers (its UUID, else its index); empty: the
    // environment as it is (the default: one GPU, the first the process sees).
    std::string pin;

    nlohmann::json to_json() const;  // {index, uuid, name}
    std::string label() const;       // "GPU 1 (NVIDIA H200, GPU-8d1a...)"
};

struct GpuSelection {
    enum class Kind { all, first, listed };
    Kind kind = Kind::first;
    int first = 1;                     // Kind::first: how many
    std::vector<std::string> entries;  // Kind::listed: indices or UUIDs, in the order given
    std::string text;                  // as given
};

// "all", "N" (the first N, N >= 1) or a comma-separated list of indices and UUIDs (GPU-...; a
// unique prefix will do). A single number is a count: one GPU other than the first is named by
// its UUID (or listed as "3,3" to share it). Errors are one line, for exit 2.
Result<GpuSelection> parse_gpu_selection(const std::string& text);

// The selection among `present` (the driver's devices, in its order). Errors are one line, for
// exit 3: the machine does not have what was asked for.
Result<std::vector<SelectedGpu>> resolve_gpu_selection(const GpuSelection& selection, const std::vector<DeviceInfo>& present);

// The GPUs of this machine, through the CUDA driver (no context is created).
Result<std::vector<SelectedGpu>> select_gpus(const GpuSelection& selection);

}  // namespace kp::gpu
