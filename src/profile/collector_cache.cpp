#include <system_error>

#include "common/files.h"
#include "common/hash.h"
#include "profile/collector.h"

namespace kp::profile {

CollectorCache::CollectorCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::string CollectorCache::make_key(std::initializer_list<std::string_view> parts) {
    Sha256 hash;
    for (std::string_view part : parts) hash.add(part);
    return hash.hex();
}

std::filesystem::path CollectorCache::path_for(const std::string& key) const { return directory_ / (key + ".txt"); }

std::optional<std::string> CollectorCache::load(const std::string& key) const {
    std::error_code ec;
    if (!std::filesystem::exists(path_for(key), ec)) return std::nullopt;
    auto text = read_text_file(path_for(key));
    if (!text) return std::nullopt;
    return *text;
}

Status CollectorCache::store(const std::string& key, const std::string& contents) const {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) return make_error("cannot create cache directory " + directory_.string() + ": " + ec.message());
    return write_file_atomically(path_for(key), contents);
}

}  // namespace kp::profile
