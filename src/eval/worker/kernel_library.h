// A loaded kernel library (reference, baseline or candidate) and its ABI entry points. Trusted
// libraries (built by kernelpro, e.g. the PyTorch bridge: docs/kernelbench.md) may also export
//   int kp_bridge_configure(const char* task_json)   once after load, with the request's task
//   int kp_bridge_finish(kp_tensor* outputs, int n, cudaStream_t)   after every call, untimed
//   const char* kp_bridge_error(void)   what went wrong, for the failure message
// The worker binds them only for libraries it loads as trusted, never for a candidate.
#pragma once

#include <string>
#include <vector>

#include "gpu/dynamic_library.h"
#include "kernelpro/abi.h"

namespace kp::worker {

class KernelLibrary {
public:
    // Opened RTLD_NOW | RTLD_LOCAL (the library's symbols never interpose on the worker's) and kept
    // mapped until the worker exits (see ~KernelLibrary).
    static KernelLibrary load(const std::string& path, const std::string& role, bool trusted = false);
    KernelLibrary() = default;
    KernelLibrary(KernelLibrary&& other) noexcept;
    KernelLibrary& operator=(KernelLibrary&& other) noexcept;
    ~KernelLibrary();

    bool loaded() const { return forward_ != nullptr; }
    const std::string& role() const { return role_; }
    // Calls kp_setup with shapes only (data == NULL), when the library defines it.
    int setup(const std::vector<kp_tensor>& inputs, const std::vector<kp_tensor>& outputs) const;
    int forward(const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs, cudaStream_t stream) const;
    // Trusted libraries only; 0 (nothing to do) otherwise.
    bool configurable() const { return configure_ != nullptr; }
    int configure(const std::string& task_json) const;
    int finish(std::vector<kp_tensor>& outputs, cudaStream_t stream) const;
    // The library's own account of its last failure, or "".
    std::string error_text() const;

private:
    gpu::DynamicLibrary library_;
    std::string role_;
    decltype(&kp_forward) forward_ = nullptr;
    decltype(&kp_setup) setup_ = nullptr;
    decltype(&kp_teardown) teardown_ = nullptr;
    int (*configure_)(const char*) = nullptr;
    int (*finish_)(kp_tensor*, int, cudaStream_t) = nullptr;
    const char* (*error_)() = nullptr;
};

}  // namespace kp::worker
