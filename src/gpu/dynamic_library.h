// A shared library opened at run time (dlopen), so kernelpro starts on machines without a GPU and
// says what is missing instead of failing at load time. Every dlopen in kernelpro goes through
// here (the hostile test kernels under tests/adversarial excepted: they exist to be caught doing it).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp::gpu {

class DynamicLibrary {
public:
    // How long the library stays mapped: until the last copy of this object goes, or until the
    // process ends (for libraries that register callbacks or handlers that outlive their user:
    // CUPTI's, a candidate's kernels).
    enum class Lifetime { while_used, process };

    // Tries each name in order (sonames first, then absolute paths), RTLD_NOW | RTLD_LOCAL, so the
    // library's symbols never interpose on ours; the error lists every attempt.
    static Result<DynamicLibrary> open(const std::vector<std::string>& names, Lifetime lifetime = Lifetime::while_used);
    // The library when this process has it loaded already (RTLD_NOLOAD), else an error.
    static Result<DynamicLibrary> find_loaded(const std::string& name);

    // Looks up a symbol; nullptr when absent (optional entry points are common across versions).
    void* symbol(const char* name) const;

    // Binds a typed function pointer; false when the symbol is absent.
    template <typename Function>
    bool bind(Function*& function, const char* name) const {
        function = reinterpret_cast<Function*>(symbol(name));
        return function != nullptr;
    }

    const std::string& loaded_name() const { return loaded_name_; }

private:
    std::shared_ptr<void> handle_;  // dlclose when the last copy goes (Lifetime::while_used)
    std::string loaded_name_;
};

}  // namespace kp::gpu
