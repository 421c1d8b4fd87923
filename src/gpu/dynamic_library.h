// A shared library opened at run time (dlopen), so kernelpro starts on machines without a GPU and
// says what is missing instead of failing at load time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp::gpu {

class DynamicLibrary {
public:
    // Tries each name in order (sonames first, then absolute paths); the error lists every attempt.
    static Result<DynamicLibrary> open(const std::vector<std::string>& names);

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
    std::shared_ptr<void> handle_;  // dlclose when the last copy goes
    std::string loaded_name_;
};

}  // namespace kp::gpu
