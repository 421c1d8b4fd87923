#include "eval/worker/channel.h"

#include <unistd.h>

#include <cerrno>

#include "common/utf8.h"

namespace kp::worker {

void Channel::send(nlohmann::json message) const {
    message["nonce"] = nonce_;
    std::string line = dump_json(message) + "\n";
    size_t written = 0;
    while (written < line.size()) {
        ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the orchestrator is gone; nothing more to say
        written += static_cast<size_t>(n);
    }
}

void Channel::progress(const std::string& phase, const nlohmann::json& detail) const {
    nlohmann::json m{{"type", "progress"}, {"phase", phase}};
    if (!detail.is_null()) m["detail"] = detail;
    send(m);
}

}  // namespace kp::worker
