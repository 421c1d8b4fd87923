#include "eval/failure_class.h"

#include <array>

namespace kp {

namespace {
constexpr std::array<const char*, 9> kNames{"ok",      "compile_error", "rejected_by_guard", "crash",
                                            "timeout", "out_of_memory", "incorrect",         "invalid_timing",
                                            "rejected_by_sandbox"};
}

const char* failure_class_name(FailureClass c) { return kNames[static_cast<size_t>(c)]; }

std::optional<FailureClass> parse_failure_class(const std::string& name) {
    for (size_t i = 0; i < kNames.size(); ++i)
        if (name == kNames[i]) return static_cast<FailureClass>(i);
    return std::nullopt;
}

}  // namespace kp
