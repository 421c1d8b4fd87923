// What every collector shares: a declared cost (so a planner can fit profiling into a budget) and
// a cache of raw tool output keyed by the build hash, so re-profiling an unchanged binary is free.
// Collectors cache the tool's raw text, not parsed values: parsing is cheap, and a parser fix then
// applies to cached data too.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace kp::profile {

struct CollectorCost {
    int replay_passes = 0;  // kernel replays ncu needs (0 for offline tools)
    double seconds = 0.0;   // expected wall time, including process start-up

    CollectorCost& operator+=(const CollectorCost& other) {
        replay_passes += other.replay_passes;
        seconds += other.seconds;
        return *this;
    }
};

class CollectorCache {
public:
    explicit CollectorCache(std::filesystem::path directory);

    // A key from parts (collector name, build hash, request fingerprint ...).
    static std::string make_key(std::initializer_list<std::string_view> parts);

    std::optional<std::string> load(const std::string& key) const;
    Status store(const std::string& key, const std::string& contents) const;
    const std::filesystem::path& directory() const { return directory_; }

private:
    std::filesystem::path path_for(const std::string& key) const;
    std::filesystem::path directory_;
};

}  // namespace kp::profile
