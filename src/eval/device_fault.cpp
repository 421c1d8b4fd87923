#include "eval/device_fault.h"

namespace kp {

namespace {
// CUDA errors that are about the device or the driver, never about one kernel's code (a kernel's
// own faults are launch failures, illegal addresses, misaligned accesses ...).
constexpr const char* kDeviceErrors[] = {
    "cudaErrorNoDevice",          "cudaErrorDevicesUnavailable", "cudaErrorInvalidDevice",
    "cudaErrorECCUncorrectable",  "cudaErrorInitializationError", "cudaErrorInsufficientDriver",
    "cudaErrorSystemNotReady",    "cudaErrorSystemDriverMismatch", "cudaErrorDeviceUninitialized",
    "cudaErrorCompatNotSupportedOnDevice", "cudaErrorDeviceNotLicensed",
};
}  // namespace

SlotVerdict device_verdict(const Result<WorkerOutcome>& outcome) {
    if (!outcome.ok()) return {true, outcome.error().message};
    if (outcome->status == FailureClass::Ok) return {};
    for (const char* name : kDeviceErrors)
        if (outcome->message.find(name) != std::string::npos) return {true, outcome->message};
    return {};
}

Status probe_worker_device(WorkerOptions options) {
    WorkerRequest request;
    request.mode = "device_check";
    request.task = nlohmann::json::object();
    options.launcher.clear();  // the plain worker: a Python host adds nothing to a device check
    options.watchdog = std::chrono::seconds(30);
    options.total_limit = std::chrono::seconds(60);
    auto outcome = run_worker(request, options);
    if (!outcome) return outcome.error();
    if (outcome->status != FailureClass::Ok) return make_error(failure_class_name(outcome->status) + std::string(": ") + outcome->message);
    return {};
}

GpuPool::HealthCheck worker_health_check(WorkerOptions options) {
    return [options](const GpuSlot& device) { return probe_worker_device(pinned_to(options, device)); };
}

WorkerOptions pinned_to(WorkerOptions options, const GpuSlot& device) {
    if (!device.pin.empty()) options.environment["CUDA_VISIBLE_DEVICES"] = device.pin;
    return options;
}

}  // namespace kp
