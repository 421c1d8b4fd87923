#include "eval/worker_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>

#include "common/files.h"
#include "common/process.h"
#include "common/resource_locator.h"

extern char** environ;

namespace kp {

namespace fs = std::filesystem;

namespace {
constexpr int kChannelFd = 3;
using Clock = std::chrono::steady_clock;

std::string fresh_nonce() {
    std::random_device entropy;
    std::string hex;
    for (int i = 0; i < 4; ++i) {
        char word[9];
        std::snprintf(word, sizeof word, "%08x", static_cast<unsigned>(entropy()));
        hex += word;
    }
    return hex;
}

// What the channel carried, message by message. Every message must carry the request's nonce:
// one that does not was written by candidate code (the worker never writes without it).
struct ChannelState {
    ChannelState(const std::string& n, WorkerOutcome& o, const std::function<void(const nlohmann::json&)>& p, Clock::time_point s)
        : nonce(n), outcome(o), on_progress(p), start(s) {}
    const std::string& nonce;
    WorkerOutcome& outcome;
    const std::function<void(const nlohmann::json&)>& on_progress;
    Clock::time_point start;
    bool got_final = false;
    std::string violation;  // reported by the sandbox's supervisor
    std::string forged;     // the first line the worker did not write
    std::string refusal;    // the worker refused to run candidate code

    void take(const std::string& line);
};

void ChannelState::take(const std::string& line) {
    nlohmann::json m = nlohmann::json::parse(line, nullptr, false);
    if (m.is_discarded() || !m.is_object() || m.value("nonce", "") != nonce || !m.contains("type")) {
        if (forged.empty()) {
            for (char c : line.substr(0, 120)) forged += c >= 0x20 && c < 0x7f ? c : '?';  // candidate bytes: printable only
        }
        return;
    }
    std::string type = m.value("type", "");
    double now = std::chrono::duration<double>(Clock::now() - start).count();
    if (type == "hello") {
        outcome.hello = m.value("device", nlohmann::json::object());
        outcome.phase_started.emplace("hello", now);
    } else if (type == "progress") {
        outcome.phase_started.emplace(m.value("phase", ""), now);
        if (on_progress) on_progress(m);
    } else if (type == "sandbox") {
        outcome.sandbox = m.value("sandbox", nlohmann::json::object());
    } else if (type == "sandbox_notes") {
        for (const auto& n : m.value("notes", nlohmann::json::array()))
            if (n.is_string()) outcome.sandbox_notes.push_back(n.get<std::string>());
    } else if (type == "sandbox_violation") {
        if (violation.empty()) violation = m.value("message", "sandbox: a forbidden call");
    } else if (type == "refused") {
        refusal = m.value("message", "the worker refused to run candidate code");
        got_final = true;
    } else if (got_final) {
        return;  // the first final message counts
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
}

// The request as the worker gets it: a nonce, the layers KERNELPRO_SANDBOX_DISABLE turns off,
// and a scratch folder of its own (kept in `scratch` for as long as the worker runs).
WorkerRequest prepared(const WorkerRequest& request, std::optional<ScratchDirectory>& scratch) {
    WorkerRequest r = request;
    if (r.nonce.empty()) r.nonce = fresh_nonce();
    if (r.sandbox.disabled.empty()) r.sandbox.disabled = sandbox::disabled_layers_from_environment();
    if (r.sandbox.scratch.empty()) {
        auto made = ScratchDirectory::create("kp-scratch-");
        if (made) {
            scratch.emplace(std::move(*made));
            r.sandbox.scratch = scratch->path().string();
        }
    }
    return r;
}

// The orchestrator's environment without what looks like a credential (API keys of LLM providers,
// tokens, passwords): candidate code can read its own environment.
std::vector<std::string> worker_environment() {
    std::vector<std::string> kept;
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        std::string name = entry.substr(0, entry.find('='));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        bool secret = false;
        for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"})
            secret = secret || name.find(word) != std::string::npos;
        if (!secret) kept.push_back(entry);
    }
    return kept;
}

// How the worker ended, when it sent no final message.
void classify_silent_end(WorkerOutcome& outcome, int status, const std::string& exe) {
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        // SIGKILL we did not send: the kernel's out-of-memory killer is the usual sender.
        outcome.status = sig == SIGKILL ? FailureClass::OutOfMemory : sig == SIGSYS ? FailureClass::RejectedBySandbox : FailureClass::Crash;
        outcome.message = std::string("the worker was killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")" +
                          (sig == SIGKILL   ? ": most likely host memory ran out"
                           : sig == SIGSYS ? ": the sandbox's filter ended it (a system call of another architecture: int 0x80 or x32)"
                                            : ": host-side crash in kernel code");
        if (sig == SIGSYS) outcome.message = "sandbox: " + outcome.message;
    } else {
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        outcome.status = FailureClass::Crash;
        outcome.message = code == 127 ? "cannot start " + exe
                                      : "the worker exited with code " + std::to_string(code) + " before reporting a result (exit() or a crash in kernel code)";
    }
}

// Reads the channel (message by message into `channel`) and the log (bounded, into `log`) until the
// worker has closed both, killing its process group when it goes silent or runs out of time.
// Returns why it was killed, or "" when it was not.
std::string follow_worker(pid_t pid, int channel_fd, int log_fd, const WorkerOptions& options, Clock::time_point start,
                          ChannelState& channel, std::string& log) {
    std::string channel_buffer, watchdog_reason;
    auto last_message = Clock::now();
    pollfd fds[2] = {{channel_fd, POLLIN, 0}, {log_fd, POLLIN, 0}};
    int open_count = 2;
    char buffer[65536];
    while (open_count > 0) {
        auto now = Clock::now();
        if (watchdog_reason.empty() && (now - last_message > options.watchdog || now - start > options.total_limit)) {
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
                    channel.take(channel_buffer.substr(0, nl));
                    channel_buffer.erase(0, nl + 1);
                }
            } else if (log.size() < options.max_log_bytes) {
                log.append(buffer, std::min(static_cast<size_t>(n), options.max_log_bytes - log.size()));
            }
        }
    }
    if (!channel_buffer.empty()) channel.take(channel_buffer);  // a last line without its newline
    return watchdog_reason;
}
}  // namespace

Result<fs::path> find_worker_executable() { return locate_worker(); }

Result<WorkerOutcome> run_worker(const WorkerRequest& original, const WorkerOptions& options) {
    fs::path executable = options.launcher.empty() ? options.worker_executable : fs::path(options.launcher.front());
    if (executable.empty()) {
        auto found = find_worker_executable();
        if (!found.ok()) return found.error();
        executable = *found;
    }
    std::optional<ScratchDirectory> scratch;
    const WorkerRequest request = prepared(original, scratch);
    int in_pipe[2], log_pipe[2], channel_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) || ::pipe2(log_pipe, O_CLOEXEC) || ::pipe2(channel_pipe, O_CLOEXEC))
        return make_error(std::string("pipe: ") + std::strerror(errno));
    std::string exe = executable.string();
    std::vector<std::string> env_strings = worker_environment();
    std::vector<char*> env;
    for (auto& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<std::string> launch = options.launcher.empty() ? std::vector<std::string>{exe} : options.launcher;
    launch.insert(launch.end(), {"--channel-fd", std::to_string(kChannelFd)});
    std::vector<char*> argv;  // built before fork: the child only calls async-signal-safe functions
    for (auto& part : launch) argv.push_back(part.data());
    argv.push_back(nullptr);
    auto start = Clock::now();
    pid_t pid = ::fork();
    if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        ::setpgid(0, 0);
        ::dup2(in_pipe[0], 0);
        ::dup2(log_pipe[1], 1);
        ::dup2(log_pipe[1], 2);
        ::dup2(channel_pipe[1], kChannelFd);  // dup2 clears CLOEXEC on the new descriptor
        ::execve(exe.c_str(), argv.data(), env.data());
        _exit(127);
    }
    ::close(in_pipe[0]);
    ::close(log_pipe[1]);
    ::close(channel_pipe[1]);

    // The request is small (paths and the task description): write it whole, then close stdin.
    (void)write_to_pipe(in_pipe[1], to_json(request).dump());  // a worker that died at start reads nothing
    ::close(in_pipe[1]);

    WorkerOutcome outcome;
    ChannelState channel(request.nonce, outcome, options.on_progress, start);
    const std::string watchdog_reason = follow_worker(pid, channel_pipe[0], log_pipe[0], options, start, channel, outcome.log);
    const bool killed_by_watchdog = !watchdog_reason.empty();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::kill(-pid, SIGKILL);  // anything the candidate may have left in the group
    outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

    if (!channel.violation.empty()) {
        outcome.status = FailureClass::RejectedBySandbox;
        outcome.message = channel.violation;
    } else if (!channel.forged.empty()) {
        outcome.status = FailureClass::RejectedBySandbox;
        outcome.message = "sandbox: the result channel carried a message the worker did not write, so candidate code wrote to it: " +
                          channel.forged;
    } else if (!channel.refusal.empty()) {
        return make_error(channel.refusal);
    } else if (killed_by_watchdog && !channel.got_final) {
        outcome.status = FailureClass::Timeout;
        outcome.message = watchdog_reason;
    } else if (!channel.got_final) {
        classify_silent_end(outcome, status, exe);
    }
    return outcome;
}

}  // namespace kp
