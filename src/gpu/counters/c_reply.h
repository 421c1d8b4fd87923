// A reply of libkp_counters' C entry points: JSON text in a malloc'd string, which the caller
// frees with kp_counters_free (no C++ object crosses the library boundary).
#pragma once

#include <cstdlib>
#include <cstring>
#include <string>

#include <nlohmann/json.hpp>

namespace kp::gpu::counters {

// nullptr when out of memory; the caller treats that as "no reply".
inline char* to_c_string(const nlohmann::json& reply) {
    const std::string text = reply.dump();
    char* out = static_cast<char*>(std::malloc(text.size() + 1));
    if (out) std::memcpy(out, text.c_str(), text.size() + 1);
    return out;
}

}  // namespace kp::gpu::counters
