// The worker's half of the protocol: JSON lines written to a dedicated file descriptor (not stdout,
// which candidate code may print to), each stamped with the request's nonce so the orchestrator
// can tell them from lines candidate code writes there.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kp::worker {

class Channel {
public:
    Channel(int fd, std::string nonce) : fd_(fd), nonce_(std::move(nonce)) {}
    void send(nlohmann::json message) const;
    void progress(const std::string& phase, const nlohmann::json& detail = {}) const;
    int fd() const { return fd_; }

private:
    int fd_;
    std::string nonce_;
};

}  // namespace kp::worker
