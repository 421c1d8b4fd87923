// NVML (libnvidia-ml.so.1) loaded at run time: driver version, clocks, power, temperature, clock
// event ("throttle") reasons and the energy counter. Read-only: nothing here changes GPU settings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.h"
#include "gpu/dynamic_library.h"

namespace kp::gpu {

// One reading of a GPU's state. Each field is empty when the driver does not report it.
struct NvmlSample {
    std::optional<unsigned> sm_clock_mhz;
    std::optional<unsigned> max_sm_clock_mhz;
    std::optional<unsigned> memory_clock_mhz;
    std::optional<unsigned> power_milliwatts;
    std::optional<unsigned> temperature_celsius;
    std::optional<std::uint64_t> clock_event_reasons;  // bit mask, see describe_clock_event_reasons
    std::optional<std::uint64_t> total_energy_millijoules;  // since the driver was loaded
};

void to_json(nlohmann::json& j, const NvmlSample& sample);

// Names of the set bits of an NVML clock event reason mask ("sw_power_cap", "hw_thermal_slowdown" ...).
// "gpu_idle" alone is normal for an idle GPU; anything else during a measurement lowers the clock.
std::vector<std::string> describe_clock_event_reasons(std::uint64_t mask);
// True when the mask holds a reason that slows a busy GPU: a power cap, thermal or hardware
// slowdown, the power brake. This is kernelpro's one throttle policy (a timing sample taken under
// such a reason is flagged). Idle, sync boost and clocks an administrator set (application or
// display clock settings) are not: a set clock is steady, so samples under it stay comparable.
bool clock_events_limit_performance(std::uint64_t mask);

class Nvml {
public:
    // Loads libnvidia-ml.so.1 and calls nvmlInit. Errors start with "no GPU:" when NVML is absent.
    static Result<Nvml> load();
    // The same from a named library (a path, or another soname); tests load a stand-in this way.
    static Result<Nvml> load_from(const std::string& library_name);

    std::string driver_version() const;          // "580.159.04", empty if unknown
    Result<unsigned> device_count() const;
    Result<std::string> device_name(unsigned index) const;
    // NVML's index for a PCI bus id such as "0000:3b:00.0" (CUDA and NVML may order GPUs differently).
    Result<unsigned> index_for_pci_bus_id(const std::string& pci_bus_id) const;
    Result<NvmlSample> sample(unsigned index) const;
    // Only the SM clock and the clock event reasons: the two reads a timing loop takes per sample.
    Result<NvmlSample> clock_sample(unsigned index) const;
    // The total-energy counter alone (millijoules since the driver loaded), for tight loops: one
    // NVML call. An error when the GPU or driver has no such counter (before Volta).
    Result<std::uint64_t> total_energy_millijoules(unsigned index) const;

private:
    struct EntryPoints;
    struct Session;  // nvmlShutdown when the last copy goes
    DynamicLibrary library_;
    std::shared_ptr<const EntryPoints> api_;
    std::shared_ptr<Session> session_;
};

}  // namespace kp::gpu
