#include "gpu/device_info.h"

#include <nlohmann/json.hpp>

namespace kp::gpu {

std::string DeviceInfo::compute_capability() const {
    return std::to_string(compute_capability_major) + "." + std::to_string(compute_capability_minor);
}

std::string DeviceInfo::sm_target() const {
    return "sm_" + std::to_string(compute_capability_major) + std::to_string(compute_capability_minor);
}

double DeviceInfo::theoretical_dram_bytes_per_second() const {
    // HBM transfers on both clock edges.
    return 2.0 * memory_clock_khz * 1e3 * (memory_bus_width_bits / 8.0);
}

std::string format_gpu_uuid(const unsigned char (&bytes)[16]) {
    static const char* digits = "0123456789abcdef";
    std::string text = "GPU-";
    for (int i = 0; i < 16; ++i) {
        text += digits[bytes[i] >> 4];
        text += digits[bytes[i] & 15];
        if (i == 3 || i == 5 || i == 7 || i == 9) text += '-';
    }
    return text;
}

std::string format_cuda_version(int version) {
    if (version <= 0) return "unknown";
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

// One list of fields drives both directions, so the two cannot drift apart.
#define KP_DEVICE_INFO_FIELDS(X)                 \
    X(ordinal)                                   \
    X(name)                                      \
    X(pci_bus_id)                                \
    X(uuid)                                      \
    X(compute_capability_major)                  \
    X(compute_capability_minor)                  \
    X(sm_count)                                  \
    X(warp_size)                                 \
    X(total_memory_bytes)                        \
    X(l2_cache_bytes)                            \
    X(max_persisting_l2_bytes)                   \
    X(shared_memory_per_sm_bytes)                \
    X(shared_memory_per_block_bytes)             \
    X(shared_memory_per_block_optin_bytes)       \
    X(reserved_shared_memory_per_block_bytes)    \
    X(registers_per_sm)                          \
    X(registers_per_block)                       \
    X(max_threads_per_sm)                        \
    X(max_warps_per_sm)                          \
    X(max_blocks_per_sm)                         \
    X(max_threads_per_block)                     \
    X(sm_clock_khz)                              \
    X(memory_clock_khz)                          \
    X(memory_bus_width_bits)                     \
    X(ecc_enabled)                               \
    X(driver_version)

void to_json(nlohmann::json& j, const DeviceInfo& info) {
    j = nlohmann::json::object();
#define KP_WRITE(field) j[#field] = info.field;
    KP_DEVICE_INFO_FIELDS(KP_WRITE)
#undef KP_WRITE
    j["compute_capability"] = info.compute_capability();
}

void from_json(const nlohmann::json& j, DeviceInfo& info) {
    info = DeviceInfo{};
    // Missing keys keep their defaults: older cache files and the ceilings helper may omit some.
#define KP_READ(field) \
    if (auto it = j.find(#field); it != j.end() && !it->is_null()) it->get_to(info.field);
    KP_DEVICE_INFO_FIELDS(KP_READ)
#undef KP_READ
}

DeviceInfo h200_reference_device() {
    DeviceInfo d;
    d.name = "NVIDIA H200";
    d.compute_capability_major = 9;
    d.compute_capability_minor = 0;
    d.sm_count = 132;
    d.total_memory_bytes = 150109880320;
    d.l2_cache_bytes = 62914560;
    d.max_persisting_l2_bytes = 39321600;
    d.shared_memory_per_sm_bytes = 233472;
    d.shared_memory_per_block_bytes = 49152;
    d.shared_memory_per_block_optin_bytes = 232448;
    d.reserved_shared_memory_per_block_bytes = 1024;
    d.registers_per_sm = 65536;
    d.registers_per_block = 65536;
    d.max_threads_per_sm = 2048;
    d.max_warps_per_sm = 64;
    d.max_blocks_per_sm = 32;
    d.max_threads_per_block = 1024;
    d.sm_clock_khz = 1980000;
    d.memory_clock_khz = 3201000;
    d.memory_bus_width_bits = 6016;
    d.ecc_enabled = true;
    return d;
}

}  // namespace kp::gpu
