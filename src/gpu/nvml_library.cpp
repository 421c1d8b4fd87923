#include "gpu/nvml_library.h"

#include <cstdio>

#include <nlohmann/json.hpp>

namespace kp::gpu {

// The toolkit ships no nvml.h here, so the few types the C API uses are declared by hand. They are
// plain C: an int status, an opaque device handle and unsigned outputs.
namespace {
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kClockSm = 1;      // NVML_CLOCK_SM
constexpr int kClockMemory = 2;  // NVML_CLOCK_MEM
constexpr int kTemperatureGpu = 0;

struct ReasonBit {
    std::uint64_t bit;
    const char* name;
    bool slows_busy_gpu;
};
// Bit values of nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*).
constexpr ReasonBit kReasonBits[] = {
    {0x1, "gpu_idle", false},
    {0x2, "applications_clocks_setting", false},
    {0x4, "sw_power_cap", true},
    {0x8, "hw_slowdown", true},
    {0x10, "sync_boost", false},
    {0x20, "sw_thermal_slowdown", true},
    {0x40, "hw_thermal_slowdown", true},
    {0x80, "hw_power_brake_slowdown", true},
    {0x100, "display_clock_setting", false},
};
}  // namespace

std::vector<std::string> describe_clock_event_reasons(std::uint64_t mask) {
    std::vector<std::string> names;
    std::uint64_t known = 0;
    for (const auto& reason : kReasonBits) {
        known |= reason.bit;
        if (mask & reason.bit) names.emplace_back(reason.name);
    }
    if (mask & ~known) names.push_back("other(0x" + [&] {
        char buffer[32];
        std::snprintf(buffer, sizeof(buffer), "%llx", static_cast<unsigned long long>(mask & ~known));
        return std::string(buffer);
    }() + ")");
    return names;
}

bool clock_events_limit_performance(std::uint64_t mask) {
    for (const auto& reason : kReasonBits)
        if ((mask & reason.bit) && reason.slows_busy_gpu) return true;
    return false;
}

void to_json(nlohmann::json& j, const NvmlSample& s) {
    j = nlohmann::json::object();
    auto put = [&](const char* key, const auto& value) {
        if (value) j[key] = *value;
        else j[key] = nullptr;
    };
    put("sm_clock_mhz", s.sm_clock_mhz);
    put("max_sm_clock_mhz", s.max_sm_clock_mhz);
    put("memory_clock_mhz", s.memory_clock_mhz);
    put("power_milliwatts", s.power_milliwatts);
    put("temperature_celsius", s.temperature_celsius);
    put("total_energy_millijoules", s.total_energy_millijoules);
    put("clock_event_reasons", s.clock_event_reasons);
    if (s.clock_event_reasons) j["clock_event_reason_names"] = describe_clock_event_reasons(*s.clock_event_reasons);
}

struct Nvml::EntryPoints {
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*shutdown)() = nullptr;
    const char* (*error_string)(NvmlReturn) = nullptr;
    NvmlReturn (*system_get_driver_version)(char*, unsigned) = nullptr;
    NvmlReturn (*device_get_count)(unsigned*) = nullptr;
    NvmlReturn (*device_get_handle_by_index)(unsigned, NvmlDevice*) = nullptr;
    NvmlReturn (*device_get_name)(NvmlDevice, char*, unsigned) = nullptr;
    NvmlReturn (*device_get_handle_by_pci_bus_id)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*device_get_index)(NvmlDevice, unsigned*) = nullptr;
    NvmlReturn (*device_get_clock_info)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*device_get_max_clock_info)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*device_get_power_usage)(NvmlDevice, unsigned*) = nullptr;
    NvmlReturn (*device_get_temperature)(NvmlDevice, int, unsigned*) = nullptr;
    NvmlReturn (*device_get_clock_event_reasons)(NvmlDevice, unsigned long long*) = nullptr;
    NvmlReturn (*device_get_total_energy)(NvmlDevice, unsigned long long*) = nullptr;

    std::string describe(NvmlReturn r) const {
        const char* text = error_string ? error_string(r) : nullptr;
        return std::string(text ? text : "NVML error") + " (" + std::to_string(r) + ")";
    }
};

struct Nvml::Session {
    std::shared_ptr<const EntryPoints> api;
    ~Session() {
        if (api && api->shutdown) api->shutdown();
    }
};

Result<Nvml> Nvml::load() { return load_from("libnvidia-ml.so.1"); }

Result<Nvml> Nvml::load_from(const std::string& library_name) {
    auto library = DynamicLibrary::open({library_name});
    if (!library) return make_error("no GPU: " + library_name + " not found (no NVIDIA driver installed)");
    auto api = std::make_shared<EntryPoints>();
    const auto& lib = *library;
    if (!lib.bind(api->init, "nvmlInit_v2") && !lib.bind(api->init, "nvmlInit"))
        return make_error("no GPU: " + lib.loaded_name() + " has no nvmlInit");
    lib.bind(api->shutdown, "nvmlShutdown");
    lib.bind(api->error_string, "nvmlErrorString");
    lib.bind(api->system_get_driver_version, "nvmlSystemGetDriverVersion");
    if (!lib.bind(api->device_get_count, "nvmlDeviceGetCount_v2")) lib.bind(api->device_get_count, "nvmlDeviceGetCount");
    if (!lib.bind(api->device_get_handle_by_index, "nvmlDeviceGetHandleByIndex_v2"))
        lib.bind(api->device_get_handle_by_index, "nvmlDeviceGetHandleByIndex");
    lib.bind(api->device_get_name, "nvmlDeviceGetName");
    if (!lib.bind(api->device_get_handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2"))
        lib.bind(api->device_get_handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId");
    lib.bind(api->device_get_index, "nvmlDeviceGetIndex");
    lib.bind(api->device_get_clock_info, "nvmlDeviceGetClockInfo");
    lib.bind(api->device_get_max_clock_info, "nvmlDeviceGetMaxClockInfo");
    lib.bind(api->device_get_power_usage, "nvmlDeviceGetPowerUsage");
    lib.bind(api->device_get_temperature, "nvmlDeviceGetTemperature");
    // Renamed in driver 535; older drivers only have the "throttle" name.
    if (!lib.bind(api->device_get_clock_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons"))
        lib.bind(api->device_get_clock_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    lib.bind(api->device_get_total_energy, "nvmlDeviceGetTotalEnergyConsumption");
    if (!api->device_get_count || !api->device_get_handle_by_index)
        return make_error("no GPU: " + lib.loaded_name() + " lacks device enumeration");

    if (NvmlReturn r = api->init(); r != kNvmlSuccess) return make_error("no GPU: nvmlInit failed with " + api->describe(r));
    Nvml nvml;
    nvml.library_ = std::move(*library);
    nvml.api_ = api;
    // Built in place: a temporary Session would call nvmlShutdown as it dies, right after the
    // nvmlInit above, and every later call would fail as uninitialized.
    auto session = std::make_shared<Session>();
    session->api = api;
    nvml.session_ = std::move(session);
    return nvml;
}

std::string Nvml::driver_version() const {
    char buffer[96] = {};
    if (!api_->system_get_driver_version || api_->system_get_driver_version(buffer, sizeof(buffer)) != kNvmlSuccess)
        return {};
    return buffer;
}

Result<unsigned> Nvml::device_count() const {
    unsigned count = 0;
    if (NvmlReturn r = api_->device_get_count(&count); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetCount failed with " + api_->describe(r));
    return count;
}

Result<std::string> Nvml::device_name(unsigned index) const {
    NvmlDevice device = nullptr;
    if (NvmlReturn r = api_->device_get_handle_by_index(index, &device); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetHandleByIndex failed with " + api_->describe(r));
    char name[128] = {};
    if (!api_->device_get_name || api_->device_get_name(device, name, sizeof(name)) != kNvmlSuccess)
        return make_error("nvmlDeviceGetName failed");
    return std::string(name);
}

Result<unsigned> Nvml::index_for_pci_bus_id(const std::string& pci_bus_id) const {
    if (!api_->device_get_handle_by_pci_bus_id || !api_->device_get_index)
        return make_error("this NVML cannot look devices up by PCI bus id");
    NvmlDevice device = nullptr;
    if (NvmlReturn r = api_->device_get_handle_by_pci_bus_id(pci_bus_id.c_str(), &device); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetHandleByPciBusId(" + pci_bus_id + ") failed with " + api_->describe(r));
    unsigned index = 0;
    if (NvmlReturn r = api_->device_get_index(device, &index); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetIndex failed with " + api_->describe(r));
    return index;
}

Result<NvmlSample> Nvml::clock_sample(unsigned index) const {
    NvmlDevice device = nullptr;
    if (NvmlReturn r = api_->device_get_handle_by_index(index, &device); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetHandleByIndex failed with " + api_->describe(r));
    NvmlSample s;
    unsigned value = 0;
    unsigned long long wide = 0;
    if (api_->device_get_clock_info && api_->device_get_clock_info(device, kClockSm, &value) == kNvmlSuccess) s.sm_clock_mhz = value;
    if (api_->device_get_clock_event_reasons && api_->device_get_clock_event_reasons(device, &wide) == kNvmlSuccess)
        s.clock_event_reasons = wide;
    return s;
}

Result<NvmlSample> Nvml::sample(unsigned index) const {
    auto s = clock_sample(index);
    if (!s) return s;
    NvmlDevice device = nullptr;
    api_->device_get_handle_by_index(index, &device);
    unsigned value = 0;
    unsigned long long wide = 0;
    if (api_->device_get_max_clock_info && api_->device_get_max_clock_info(device, kClockSm, &value) == kNvmlSuccess)
        s->max_sm_clock_mhz = value;
    if (api_->device_get_clock_info && api_->device_get_clock_info(device, kClockMemory, &value) == kNvmlSuccess)
        s->memory_clock_mhz = value;
    if (api_->device_get_power_usage && api_->device_get_power_usage(device, &value) == kNvmlSuccess)
        s->power_milliwatts = value;
    if (api_->device_get_temperature && api_->device_get_temperature(device, kTemperatureGpu, &value) == kNvmlSuccess)
        s->temperature_celsius = value;
    if (api_->device_get_total_energy && api_->device_get_total_energy(device, &wide) == kNvmlSuccess)
        s->total_energy_millijoules = wide;
    return s;
}

Result<std::uint64_t> Nvml::total_energy_millijoules(unsigned index) const {
    if (!api_->device_get_total_energy) return make_error("this NVML has no nvmlDeviceGetTotalEnergyConsumption");
    NvmlDevice device = nullptr;
    if (NvmlReturn r = api_->device_get_handle_by_index(index, &device); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetHandleByIndex failed with " + api_->describe(r));
    unsigned long long millijoules = 0;
    if (NvmlReturn r = api_->device_get_total_energy(device, &millijoules); r != kNvmlSuccess)
        return make_error("nvmlDeviceGetTotalEnergyConsumption failed with " + api_->describe(r));
    return static_cast<std::uint64_t>(millijoules);
}

}  // namespace kp::gpu
