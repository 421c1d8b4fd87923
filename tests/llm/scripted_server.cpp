#include "scripted_server.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "../source_tree.h"
#include "common/files.h"

namespace kp::llm::testing {

ScriptedServer::ScriptedServer(std::vector<ScriptedResponse> script)
    : server_(std::make_unique<httplib::Server>()), script_(std::move(script)) {
    server_->Post(".*", [this](const httplib::Request& request, httplib::Response& response) {
        ScriptedResponse answer;
        {
            std::lock_guard lock(mutex_);
            ReceivedRequest received{request.path, {}, request.body};
            for (const auto& [name, value] : request.headers) {
                std::string lower = name;
                std::transform(lower.begin(), lower.end(), lower.begin(),
                               [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                received.headers[lower] = value;
            }
            received_.push_back(std::move(received));
            if (next_ < script_.size()) {
                answer = script_[next_++];
            } else {
                // Not retryable, so a test that asks too much fails fast and visibly.
                answer.status = 418;
                answer.body = R"({"error":{"type":"script_exhausted","message":"the test server's script is used up"}})";
            }
        }
        if (answer.delay.count() > 0) std::this_thread::sleep_for(answer.delay);
        response.status = answer.status;
        for (const auto& [name, value] : answer.headers) response.set_header(name, value);
        response.set_content(answer.body, "application/json");
    });
    port_ = server_->bind_to_any_port("127.0.0.1");
    if (port_ <= 0) {
        std::cerr << "ScriptedServer: cannot bind 127.0.0.1\n";
        std::abort();
    }
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // The socket already listens (connections queue), but wait for the accept loop anyway.
    for (int i = 0; i < 500 && !server_->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

ScriptedServer::~ScriptedServer() {
    server_->stop();
    if (thread_.joinable()) thread_.join();
}

std::string ScriptedServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

std::vector<ReceivedRequest> ScriptedServer::received() const {
    std::lock_guard lock(mutex_);
    return received_;
}

std::filesystem::path fixture_path(const std::string& name) {
    return kp::testing::source_path("tests/llm/fixtures/" + name);
}

std::string fixture(const std::string& name) {
    auto text = read_text_file(fixture_path(name));
    if (!text) {
        std::cerr << "missing test fixture: " << text.error().message << "\n";
        std::abort();
    }
    return *text;
}

}  // namespace kp::llm::testing
