#include "gpu/dynamic_library.h"

#include <dlfcn.h>

namespace kp::gpu {

Result<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names) {
    std::string attempts;
    for (const auto& name : names) {
        // RTLD_LOCAL keeps the library's symbols out of the global namespace, so two CUPTI or CUDA
        // copies in one process cannot bind to each other by accident.
        void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            DynamicLibrary library;
            library.handle_ = std::shared_ptr<void>(handle, [](void* h) { ::dlclose(h); });
            library.loaded_name_ = name;
            return library;
        }
        const char* why = ::dlerror();
        if (!attempts.empty()) attempts += "; ";
        attempts += why ? why : (name + ": unknown dlopen error");
    }
    std::string first = names.empty() ? std::string("(no name)") : names.front();
    return make_error(first + " not found (" + attempts + ")");
}

void* DynamicLibrary::symbol(const char* name) const {
    if (!handle_) return nullptr;
    return ::dlsym(handle_.get(), name);
}

}  // namespace kp::gpu
