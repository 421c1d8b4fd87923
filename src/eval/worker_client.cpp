#include "eval/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/process.h"
#include "common/resource_locator.h"

extern char** environ;

namespace kp {

namespace fs = std::filesystem;

namespace {
constexpr int kChannelFd = 3;
using Clock = std::chrono::steady_clock;
}  // namespace

Result<fs::path> find_worker_executable() { return locate_worker(); }

Result<WorkerOutcome> run_worker(const WorkerRequest& request, const WorkerOptions& options) {
    fs::path executable = options.worker_executable;
    if (executable.empty()) {
        auto found = find_worker_executable();
        if (!found.ok()) return found.error();
        executable = *found;
    }
    int in_pipe[2], log_pipe[2], channel_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) || ::pipe2(log_pipe, O_CLOEXEC) || ::pipe2(channel_pipe, O_CLOEXEC))
        return make_error(std::string("pipe: ") + std::strerror(errno));
    std::string exe = executable.string();
    std::string fd_text = std::to_string(kChannelFd);
    auto start = Clock::now();
    pid_t pid = ::fork();
    if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);
        ::dup2(in_pipe[0], 0);
        ::dup2(log_pipe[1], 1);
        ::dup2(log_pipe[1], 2);
        ::dup2(channel_pipe[1], kChannelFd);  // dup2 clears CLOEXEC on the new descriptor
        char* argv[] = {exe.data(), const_cast<char*>("--channel-fd"), fd_text.data(), nullptr};
        ::execve(exe.c_str(), argv, environ);
        _exit(127);
    }
    ::close(in_pipe[0]);
    ::close(log_pipe[1]);
    ::close(channel_pipe[1]);

    // The request is small (paths and the task description): write it whole, then close stdin.
    (void)write_to_pipe(in_pipe[1], to_json(request).dump());  // a worker that died at start reads nothing
    ::close(in_pipe[1]);

    WorkerOutcome outcome;
    std::string channel_buffer;
    bool got_final = false;
    bool killed_by_watchdog = false;
    std::string watchdog_reason;
    auto last_message = Clock::now();
    pollfd fds[2] = {{channel_pipe[0], POLLIN, 0}, {log_pipe[0], POLLIN, 0}};
    int open_count = 2;
    char buffer[65536];
    auto handle_message = [&](const std::string& line) {
        nlohmann::json m;
        try {
            m = nlohmann::json::parse(line);
        } catch (...) {
            return;  // not ours; ignore
        }
        std::string type = m.value("type", "");
        double now = std::chrono::duration<double>(Clock::now() - start).count();
        if (type == "hello") {
            outcome.hello = m.value("device", nlohmann::json::object());
        } else if (type == "progress") {
            outcome.phase_started.emplace(m.value("phase", ""), now);
            if (options.on_progress) options.on_progress(m);
        } else if (type == "result") {
            outcome.status = FailureClass::Ok;
            outcome.result = m;
            got_final = true;
        } else if (type == "failure") {
            outcome.status = parse_failure_class(m.value("class", "crash")).value_or(FailureClass::Crash);
            outcome.message = m.value("message", "");
            outcome.phase = m.value("phase", "");
            got_final = true;
        }
    };
    while (open_count > 0) {
        auto now = Clock::now();
        if (!killed_by_watchdog && (now - last_message > options.watchdog || now - start > options.total_limit)) {
            killed_by_watchdog = true;
            watchdog_reason = now - start > options.total_limit ? "the evaluation exceeded its total time limit"
                                                                : "the worker went silent (a candidate call hung in host code or the GPU stopped responding)";
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
        }
        int ready = ::poll(fds, 2, 200);
        if (ready < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n <= 0) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_count;
                continue;
            }
            if (i == 0) {
                last_message = Clock::now();
                channel_buffer.append(buffer, static_cast<size_t>(n));
                for (size_t nl; (nl = channel_buffer.find('\n')) != std::string::npos;) {
                    handle_message(channel_buffer.substr(0, nl));
                    channel_buffer.erase(0, nl + 1);
                }
            } else if (outcome.log.size() < options.max_log_bytes) {
                outcome.log.append(buffer, std::min(static_cast<size_t>(n), options.max_log_bytes - outcome.log.size()));
            }
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::kill(-pid, SIGKILL);  // anything the candidate may have left in the group
    outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

    if (killed_by_watchdog && !got_final) {
        outcome.status = FailureClass::Timeout;
        outcome.message = watchdog_reason;
    } else if (!got_final) {
        if (WIFSIGNALED(status)) {
            int sig = WTERMSIG(status);
            // SIGKILL we did not send: the kernel's out-of-memory killer is the usual sender.
            outcome.status = sig == SIGKILL ? FailureClass::OutOfMemory : FailureClass::Crash;
            outcome.message = std::string("the worker was killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) +
                              ")" + (sig == SIGKILL ? ": most likely host memory ran out" : ": host-side crash in kernel code");
        } else {
            int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            outcome.status = FailureClass::Crash;
            outcome.message = code == 127 ? "cannot start " + exe
                                          : "the worker exited with code " + std::to_string(code) + " before reporting a result (exit() or a crash in kernel code)";
        }
    }
    return outcome;
}

}  // namespace kp
