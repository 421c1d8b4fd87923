#include "profile/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace kp::profile {

std::string demangle(std::string_view name) {
    std::string input(name);
    if (input.rfind("_Z", 0) != 0) return input;
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), std::free);
    return (status == 0 && out) ? std::string(out.get()) : input;
}

std::string kernel_base_name(std::string_view name) {
    std::string text = demangle(name);
    // Cut the parameter list: the first '(' at template depth 0.
    int depth = 0;
    size_t end = text.size();
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '<') ++depth;
        else if (c == '>') --depth;
        else if (c == '(' && depth == 0) { end = i; break; }
    }
    text.resize(end);
    // Drop template arguments.
    std::string stripped;
    depth = 0;
    for (char c : text) {
        if (c == '<') { ++depth; continue; }
        if (c == '>') { --depth; continue; }
        if (depth == 0) stripped.push_back(c);
    }
    // Drop a return type ("void ns::k" -> "ns::k").
    size_t space = stripped.rfind(' ');
    if (space != std::string::npos) stripped = stripped.substr(space + 1);
    return stripped;
}

bool same_kernel(std::string_view a, std::string_view b) {
    return !a.empty() && kernel_base_name(a) == kernel_base_name(b);
}

}  // namespace kp::profile
