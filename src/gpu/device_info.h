// What kernelpro needs to know about one GPU: the limits the occupancy calculator and the roofline
// use, plus identification. A plain value with a JSON form, so it can be cached and replayed.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace kp::gpu {

struct DeviceInfo {
    int ordinal = 0;
    std::string name;                       // "NVIDIA H200"
    std::string pci_bus_id;                 // "0000:3b:00.0" when known
    std::string uuid;                       // "GPU-8d1a2b3c-...", as nvidia-smi and CUDA_VISIBLE_DEVICES write it, when known
    int compute_capability_major = 0;
    int compute_capability_minor = 0;
    int sm_count = 0;
    int warp_size = 32;
    std::int64_t total_memory_bytes = 0;
    std::int64_t l2_cache_bytes = 0;
    std::int64_t max_persisting_l2_bytes = 0;
    std::int64_t shared_memory_per_sm_bytes = 0;
    std::int64_t shared_memory_per_block_bytes = 0;        // default limit (48 KiB)
    std::int64_t shared_memory_per_block_optin_bytes = 0;  // after cudaFuncSetAttribute
    std::int64_t reserved_shared_memory_per_block_bytes = 0;  // taken by the driver (1 KiB on sm_80+)
    int registers_per_sm = 0;
    int registers_per_block = 0;
    int max_threads_per_sm = 0;
    int max_warps_per_sm = 0;
    int max_blocks_per_sm = 0;
    int max_threads_per_block = 0;
    int sm_clock_khz = 0;                   // the driver's "typical" (boost) clock
    int memory_clock_khz = 0;               // peak memory clock
    int memory_bus_width_bits = 0;
    bool ecc_enabled = false;
    int driver_version = 0;                 // CUDA driver API version, e.g. 13000

    std::string compute_capability() const;  // "9.0"
    std::string sm_target() const;           // "sm_90"
    // Peak DRAM bandwidth from clock and bus width (double data rate), in bytes per second.
    double theoretical_dram_bytes_per_second() const;
};

// The 16 bytes of a device UUID as GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

// "13.0" from 13000.
std::string format_cuda_version(int version);

void to_json(nlohmann::json& j, const DeviceInfo& info);
void from_json(const nlohmann::json& j, DeviceInfo& info);

// The H200 SXM as documented (docs/device.md, "H200 SXM reference figures"); used when no GPU is present.
DeviceInfo h200_reference_device();

}  // namespace kp::gpu
