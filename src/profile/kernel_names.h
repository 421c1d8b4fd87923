// Matching kernel names across tools: ncu prints demangled names with parameter lists
// ("copy_vec4(const float4 *, float4 *, unsigned long)"), SASS and ptxas use mangled ones
// ("_Z9copy_vec4PK6float4PS_m"). They are compared by their qualified base name.
#pragma once

#include <string>
#include <string_view>

namespace kp::profile {

// The demangled name, or the input when it is not a mangled C++ name.
std::string demangle(std::string_view name);

// "ns::copy_vec4" from "ns::copy_vec4(const float4 *, ...)", "_ZN2ns9copy_vec4E..." or "void ns::copy_vec4<4>(...)"
// (template arguments and the return type dropped).
std::string kernel_base_name(std::string_view name);

bool same_kernel(std::string_view a, std::string_view b);

}  // namespace kp::profile
