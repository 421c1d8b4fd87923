#include "gpu/dynamic_library.h"

#include <dlfcn.h>

namespace kp::gpu {

namespace {

std::shared_ptr<void> own(void* handle, DynamicLibrary::Lifetime lifetime) {
    if (lifetime == DynamicLibrary::Lifetime::process) return std::shared_ptr<void>(handle, [](void*) {});
    return std::shared_ptr<void>(handle, [](void* h) { ::dlclose(h); });
}

}  // namespace

Result<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names, Lifetime lifetime) {
    std::string attempts;
    for (const auto& name : names) {
        // RTLD_LOCAL keeps the library's symbols out of the global namespace, so two CUPTI or CUDA
        // copies in one process cannot bind to each other by accident.
        void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle) {
            DynamicLibrary library;
            library.handle_ = own(handle, lifetime);
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

Result<DynamicLibrary> DynamicLibrary::find_loaded(const std::string& name) {
    void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (!handle) return make_error(name + " is not loaded in this process");
    DynamicLibrary library;
    library.handle_ = own(handle, Lifetime::while_used);  // drops only the reference taken here
    library.loaded_name_ = name;
    return library;
}

void* DynamicLibrary::symbol(const char* name) const {
    if (!handle_) return nullptr;
    return ::dlsym(handle_.get(), name);
}

}  // namespace kp::gpu
