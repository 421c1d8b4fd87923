#include "eval/worker/kernel_library.h"

#include "eval/worker/worker_failure.h"

namespace kp::worker {

KernelLibrary KernelLibrary::load(const std::string& path, const std::string& role, bool trusted) {
    KernelLibrary lib;
    lib.role_ = role;
    auto opened = gpu::DynamicLibrary::open({path}, gpu::DynamicLibrary::Lifetime::process);
    if (!opened) throw WorkerFailure(FailureClass::Crash, role + ": cannot load " + opened.error().message, "load");
    lib.library_ = std::move(*opened);
    lib.library_.bind(lib.forward_, "kp_forward");
    lib.library_.bind(lib.setup_, "kp_setup");
    lib.library_.bind(lib.teardown_, "kp_teardown");
    if (!lib.forward_) throw WorkerFailure(FailureClass::Crash, role + ": " + path + " does not export kp_forward", "load");
    if (trusted) {
        lib.library_.bind(lib.configure_, "kp_bridge_configure");
        lib.library_.bind(lib.finish_, "kp_bridge_finish");
        lib.library_.bind(lib.error_, "kp_bridge_error");
    }
    return lib;
}

KernelLibrary::KernelLibrary(KernelLibrary&& other) noexcept { *this = std::move(other); }

KernelLibrary& KernelLibrary::operator=(KernelLibrary&& other) noexcept {
    std::swap(library_, other.library_);
    std::swap(role_, other.role_);
    std::swap(forward_, other.forward_);
    std::swap(setup_, other.setup_);
    std::swap(teardown_, other.teardown_);
    std::swap(configure_, other.configure_);
    std::swap(finish_, other.finish_);
    std::swap(error_, other.error_);
    return *this;
}

KernelLibrary::~KernelLibrary() {
    // Libraries stay mapped until the worker exits: unloading code that may have left work or
    // callbacks behind is riskier than the memory it would free, and each worker is short-lived.
    if (teardown_) teardown_();
}

int KernelLibrary::setup(const std::vector<kp_tensor>& inputs, const std::vector<kp_tensor>& outputs) const {
    if (!setup_) return 0;
    return setup_(inputs.data(), static_cast<int>(inputs.size()), outputs.data(), static_cast<int>(outputs.size()));
}

int KernelLibrary::forward(const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs, cudaStream_t stream) const {
    return forward_(inputs.data(), static_cast<int>(inputs.size()), outputs.data(), static_cast<int>(outputs.size()), stream);
}

int KernelLibrary::configure(const std::string& task_json) const { return configure_ ? configure_(task_json.c_str()) : 0; }

int KernelLibrary::finish(std::vector<kp_tensor>& outputs, cudaStream_t stream) const {
    return finish_ ? finish_(outputs.data(), static_cast<int>(outputs.size()), stream) : 0;
}

std::string KernelLibrary::error_text() const {
    const char* text = error_ ? error_() : nullptr;
    return text ? text : "";
}

}  // namespace kp::worker
