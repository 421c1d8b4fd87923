// Shared set-up of the escape suite: a throwaway world the escapes aim at (a home folder, a run
// store, a folder outside the scratch folder, a loopback listener, named by KP_ESCAPE_HOME,
// KP_ESCAPE_STORE, KP_ESCAPE_DIR and KP_ESCAPE_PORT, which the worker inherits), and a run of one
// library in the real worker's sandbox_check mode.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/files.h"
#include "eval/worker_client.h"
#include "sandbox/sandbox_report.h"

namespace kp::testing {

// Sets environment variables for the life of the object, then restores them.
class ScopedEnvironment {
public:
    ScopedEnvironment() = default;
    ScopedEnvironment(const ScopedEnvironment&) = delete;
    ~ScopedEnvironment() {
        for (const auto& [name, old] : saved_) {
            if (old) ::setenv(name.c_str(), old->c_str(), 1);
            else ::unsetenv(name.c_str());
        }
    }
    void set(const std::string& name, const std::string& value) {
        if (!saved_.count(name)) {
            const char* old = std::getenv(name.c_str());
            saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
        }
        ::setenv(name.c_str(), value.c_str(), 1);
    }

private:
    std::map<std::string, std::optional<std::string>> saved_;
};

class EscapeWorld {
public:
    EscapeWorld() : root_(make_temp_directory("kp-escape-world-").value()) {
        home = root_ / "home";
        outside = root_ / "outside";
        store = root_ / "store" / "runs.db";
        for (const auto& d : {home, outside, store.parent_path()}) std::filesystem::create_directories(d);
        std::ofstream(store) << "SQLite format 3 (a stand-in run store)\n";
        std::ofstream(home / ".secret") << "not for candidates\n";
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        ::bind(listener_, reinterpret_cast<sockaddr*>(&address), size);
        ::listen(listener_, 4);
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size);
        port = ntohs(address.sin_port);
        env_.set("KP_ESCAPE_HOME", home.string());
        env_.set("KP_ESCAPE_STORE", store.string());
        env_.set("KP_ESCAPE_DIR", outside.string());
        env_.set("KP_ESCAPE_PORT", std::to_string(port));
    }
    ~EscapeWorld() {
        ::close(listener_);
        std::error_code ignored;
        std::filesystem::remove_all(root_, ignored);
        for (const char* leak : {"/etc/kp-escape-etc", "/tmp/kp-escape-outside", "/tmp/kp-escape-forked", "/tmp/kp-escape-execed"})
            std::filesystem::remove(leak, ignored);
    }

    // What an escape would have left: files where none may appear, a connection, a changed store.
    std::vector<std::string> traces() const {
        std::vector<std::string> found;
        std::error_code ec;
        for (const auto& dir : {home, outside})
            for (const auto& e : std::filesystem::directory_iterator(dir, ec))
                if (e.path().filename() != ".secret") found.push_back(e.path().string());
        for (const char* leak : {"/etc/kp-escape-etc", "/tmp/kp-escape-outside", "/tmp/kp-escape-forked", "/tmp/kp-escape-execed"})
            if (std::filesystem::exists(leak, ec)) found.push_back(leak);
        pollfd p{listener_, POLLIN, 0};
        if (::poll(&p, 1, 0) > 0) found.push_back("a connection to 127.0.0.1:" + std::to_string(port));
        auto contents = read_text_file(store);
        if (!contents.ok() || *contents != "SQLite format 3 (a stand-in run store)\n") found.push_back(store.string() + " changed");
        return found;
    }

    std::filesystem::path home, outside, store;
    int port = 0;

private:
    std::filesystem::path root_;
    int listener_ = -1;
    ScopedEnvironment env_;
};

#ifdef KP_ESCAPE_LIBRARY_DIR
inline std::string escape_library(int goal, int route) {
    return std::string(KP_ESCAPE_LIBRARY_DIR) + "/escape_g" + std::to_string(goal) + "_r" + std::to_string(route) + ".so";
}
#endif

#ifdef KP_WORKER_BINARY
// One library in the worker's sandbox_check mode (the sandbox exactly as before an evaluation).
inline Result<WorkerOutcome> run_in_sandbox(const std::string& library, bool required = false) {
    WorkerRequest request;
    request.mode = "sandbox_check";
    request.task = nlohmann::json::object();
    request.candidate_library = library;
    request.sandbox.required = required;
    WorkerOptions options;
    options.worker_executable = KP_WORKER_BINARY;
    options.watchdog = std::chrono::seconds(20);
    options.total_limit = std::chrono::seconds(30);
    return run_worker(request, options);
}
#endif

}  // namespace kp::testing
