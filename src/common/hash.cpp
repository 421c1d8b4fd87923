#include "common/hash.h"

#include <openssl/evp.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace kp {

namespace {
std::string to_hex(const unsigned char* bytes, unsigned int length) {
    std::string out;
    char buf[3];
    for (unsigned i = 0; i < length; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
        out += buf;
    }
    return out;
}
}  // namespace

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
    if (!context_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(context_), EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("OpenSSL SHA-256 init failed");
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(context_)); }

Sha256& Sha256::add(std::string_view part) {
    auto* ctx = static_cast<EVP_MD_CTX*>(context_);
    uint64_t length = part.size();
    EVP_DigestUpdate(ctx, &length, sizeof length);
    EVP_DigestUpdate(ctx, part.data(), part.size());
    return *this;
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(context_), digest, &length);
    return to_hex(digest, length);
}

std::string sha256_hex(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
    return to_hex(digest, length);
}

}  // namespace kp
