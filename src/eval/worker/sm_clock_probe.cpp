#include "eval/worker/sm_clock_probe.h"

#include <dlfcn.h>

namespace kp::worker {

namespace {
constexpr int kNvmlClockSm = 1;
// Reasons that mean the clock is held down by power, heat or a slowdown signal (NVML bit values).
constexpr unsigned long long kSlowdownMask = 0x4ull /*sw power cap*/ | 0x8ull /*hw slowdown*/ |
                                             0x20ull /*sw thermal*/ | 0x40ull /*hw thermal*/ | 0x80ull /*hw power brake*/;
}

SmClockProbe::SmClockProbe() {
    library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) return;
    auto init = reinterpret_cast<int (*)()>(::dlsym(library_, "nvmlInit_v2"));
    auto handle_by_index = reinterpret_cast<int (*)(unsigned, void**)>(::dlsym(library_, "nvmlDeviceGetHandleByIndex_v2"));
    auto driver_version = reinterpret_cast<int (*)(char*, unsigned)>(::dlsym(library_, "nvmlSystemGetDriverVersion"));
    get_clock_ = reinterpret_cast<int (*)(void*, int, unsigned*)>(::dlsym(library_, "nvmlDeviceGetClockInfo"));
    get_reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(::dlsym(library_, "nvmlDeviceGetCurrentClocksEventReasons"));
    if (!get_reasons_)
        get_reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(::dlsym(library_, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!init || !handle_by_index || !get_clock_ || init() != 0) return;
    // Device 0 of what the process sees; CUDA_VISIBLE_DEVICES ordering matches NVML's on one-GPU hosts.
    void* device = nullptr;
    if (handle_by_index(0, &device) == 0) device_ = device;
    char version[96] = {};
    if (driver_version && driver_version(version, sizeof version) == 0) driver_version_ = version;
}

unsigned SmClockProbe::sm_clock_mhz() const {
    unsigned mhz = 0;
    if (device_) get_clock_(device_, kNvmlClockSm, &mhz);
    return mhz;
}

bool SmClockProbe::throttled() const {
    unsigned long long reasons = 0;
    if (!device_ || !get_reasons_ || get_reasons_(device_, &reasons) != 0) return false;
    return (reasons & kSlowdownMask) != 0;
}

}  // namespace kp::worker
