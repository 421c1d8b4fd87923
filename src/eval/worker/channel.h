// The worker's half of the protocol: JSON lines written to a dedicated file descriptor (not stdout,
// which candidate code may print to).
#pragma once

#include <nlohmann/json.hpp>

namespace kp::worker {

class Channel {
public:
    explicit Channel(int fd) : fd_(fd) {}
    void send(const nlohmann::json& message) const;
    void progress(const std::string& phase, const nlohmann::json& detail = {}) const;

private:
    int fd_;
};

}  // namespace kp::worker
