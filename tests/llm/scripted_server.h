// A local HTTP server for tests: answers POSTs on 127.0.0.1 (ephemeral port) from a script of
// canned responses, one per request, in order, and remembers what it received.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace kp::llm::testing {

struct ScriptedResponse {
    int status = 200;
    std::string body;
    std::map<std::string, std::string> headers;
    std::chrono::milliseconds delay{0};  // sleep before answering (longer than a client timeout = a timeout)
};

struct ReceivedRequest {
    std::string path;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::string body;
};

class ScriptedServer {
public:
    explicit ScriptedServer(std::vector<ScriptedResponse> script);
    ~ScriptedServer();
    ScriptedServer(const ScriptedServer&) = delete;
    ScriptedServer& operator=(const ScriptedServer&) = delete;

    std::string base_url() const;  // "http://127.0.0.1:PORT"
    int port() const { return port_; }
    std::vector<ReceivedRequest> received() const;

private:
    std::unique_ptr<httplib::Server> server_;
    std::thread thread_;
    int port_ = 0;
    mutable std::mutex mutex_;
    std::vector<ScriptedResponse> script_;
    std::size_t next_ = 0;
    std::vector<ReceivedRequest> received_;
};

// The text of tests/llm/fixtures/<name>; aborts the test binary if missing (a broken checkout).
std::string fixture(const std::string& name);
std::filesystem::path fixture_path(const std::string& name);

}  // namespace kp::llm::testing
