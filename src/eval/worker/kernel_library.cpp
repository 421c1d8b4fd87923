#include "eval/worker/kernel_library.h"

#include <dlfcn.h>

#include "eval/worker/worker_failure.h"

namespace kp::worker {

KernelLibrary KernelLibrary::load(const std::string& path, const std::string& role) {
    KernelLibrary lib;
    lib.role_ = role;
    lib.handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib.handle_) {
        const char* why = ::dlerror();
        throw WorkerFailure(FailureClass::Crash, role + ": cannot load " + path + ": " + (why ? why : "?"), "load");
    }
    lib.forward_ = reinterpret_cast<decltype(&kp_forward)>(::dlsym(lib.handle_, "kp_forward"));
    lib.setup_ = reinterpret_cast<decltype(&kp_setup)>(::dlsym(lib.handle_, "kp_setup"));
    lib.teardown_ = reinterpret_cast<decltype(&kp_teardown)>(::dlsym(lib.handle_, "kp_teardown"));
    if (!lib.forward_) throw WorkerFailure(FailureClass::Crash, role + ": " + path + " does not export kp_forward", "load");
    return lib;
}

KernelLibrary::KernelLibrary(KernelLibrary&& other) noexcept { *this = std::move(other); }

KernelLibrary& KernelLibrary::operator=(KernelLibrary&& other) noexcept {
    std::swap(handle_, other.handle_);
    std::swap(role_, other.role_);
    std::swap(forward_, other.forward_);
    std::swap(setup_, other.setup_);
    std::swap(teardown_, other.teardown_);
    return *this;
}

KernelLibrary::~KernelLibrary() {
    // Libraries stay mapped until the worker exits: unloading code that may have left work or
    // callbacks behind is riskier than the memory it would free, and each worker is short-lived.
    if (handle_ && teardown_) teardown_();
}

int KernelLibrary::setup(const std::vector<kp_tensor>& inputs, const std::vector<kp_tensor>& outputs) const {
    if (!setup_) return 0;
    return setup_(inputs.data(), static_cast<int>(inputs.size()), outputs.data(), static_cast<int>(outputs.size()));
}

int KernelLibrary::forward(const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs, cudaStream_t stream) const {
    return forward_(inputs.data(), static_cast<int>(inputs.size()), outputs.data(), static_cast<int>(outputs.size()), stream);
}

}  // namespace kp::worker
