// Content hashes for cache keys (SHA-256, hex).
#pragma once

#include <string>
#include <string_view>

namespace kp {

std::string sha256_hex(std::string_view data);

// Incremental form, so a key can be built from several parts without concatenating them.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    // Each part is length-prefixed, so ("ab","c") and ("a","bc") hash differently.
    Sha256& add(std::string_view part);
    std::string hex();

private:
    void* context_;
};

}  // namespace kp
