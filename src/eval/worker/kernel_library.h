// A loaded kernel library (reference, baseline or candidate) and its ABI entry points.
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
    static KernelLibrary load(const std::string& path, const std::string& role);
    KernelLibrary() = default;
    KernelLibrary(KernelLibrary&& other) noexcept;
    KernelLibrary& operator=(KernelLibrary&& other) noexcept;
    ~KernelLibrary();

    bool loaded() const { return forward_ != nullptr; }
    const std::string& role() const { return role_; }
    // Calls kp_setup with shapes only (data == NULL), when the library defines it.
    int setup(const std::vector<kp_tensor>& inputs, const std::vector<kp_tensor>& outputs) const;
    int forward(const std::vector<kp_tensor>& inputs, std::vector<kp_tensor>& outputs, cudaStream_t stream) const;

private:
    gpu::DynamicLibrary library_;
    std::string role_;
    decltype(&kp_forward) forward_ = nullptr;
    decltype(&kp_setup) setup_ = nullptr;
    decltype(&kp_teardown) teardown_ = nullptr;
};

}  // namespace kp::worker
