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
#include "common/child_processes.h"
#include "common/process.h"
#include "common/resource_locator.h"
#include "common/utf8.h"
#include "eval/worker_channel_reader.h"

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
// tokens, passwords): candidate code can read its own environment. `set` adds or replaces entries.
std::vector<std::string> worker_environment(const std::map<std::string, std::string>& set) {
    std::vector<std::string> kept;
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        std::string name = entry.substr(0, entry.find('='));
        if (set.count(name)) continue;
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
        bool secret = false;
        for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"})
            secret = secret || name.find(word) != std::string::npos;
        if (!secret) kept.push_back(entry);
    }
    for (const auto& [name, value] : set) kept.push_back(name + "=" + value);
    return kept;
}

// ": <the last line the process printed>", trimmed, or nothing: the clue to a start that failed.
std::string last_line_of(const std::string& log) {
    size_t end = log.find_last_not_of(" \t\r\n");
    if (end == std::string::npos) return "";
    const size_t newline = log.rfind('\n', end);
    const size_t begin = newline == std::string::npos ? 0 : newline + 1;
    std::string line = log.substr(begin, end + 1 - begin);
    if (line.size() > 200) line = line.substr(0, 200) + "...";
    return ": " + valid_utf8(line);
}

std::string describe_worker_exit(int status) {
    if (WIFSIGNALED(status)) return std::string("killed by signal ") + strsignal(WTERMSIG(status));
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return code == 127 ? "it could not be executed" : "exit code " + std::to_string(code);
}

// How the worker ended, when it sent no final message after its hello.
void classify_silent_end(WorkerOutcome& outcome, int status) {
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
        outcome.message = "the worker exited with code " + std::to_string(code) + " before reporting a result (exit() or a crash in kernel code)";
    }
}

// What the channel said and how the worker ended, as one classified outcome, or an error when the
// ending is not the candidate's doing.
Result<WorkerOutcome> classify_ending(const ChannelState& said, int status, const std::string& watchdog_reason, WorkerOutcome outcome) {
    outcome.hello = said.hello;
    outcome.sandbox = said.sandbox;
    outcome.sandbox_notes = said.sandbox_notes;
    outcome.phase_started = said.phase_started;
    // What the sandbox saw outranks everything the channel says: candidate code acted.
    if (!said.violation.empty()) {
        outcome.status = FailureClass::RejectedBySandbox;
        outcome.message = said.violation;
        return outcome;
    }
    if (!said.forged.empty()) {
        outcome.status = FailureClass::RejectedBySandbox;
        outcome.message = "sandbox: the result channel carried a message the worker did not write, so candidate code wrote to it: " +
                          said.forged;
        return outcome;
    }
    if (!said.refusal.empty()) return make_error(said.refusal);
    // Before `hello` the worker has loaded no kernel at all: whatever went wrong is the machine's
    // (no GPU, no driver, a broken install) or kernelpro's, never the candidate's.
    if (!said.got_hello) {
        std::string reason = said.got_final             ? said.message
                             : !watchdog_reason.empty() ? "it went silent while starting the GPU"
                                                        : "it ended before starting the GPU (" + describe_worker_exit(status) + ")" +
                                                              last_line_of(outcome.log);
        return make_error((said.phase == "protocol" ? "internal error: the worker refused the request: "
                                                    : "the evaluation worker could not start: ") + reason);
    }
    if (said.got_final) {
        outcome.status = said.status;
        outcome.message = said.message;
        outcome.phase = said.phase;
        outcome.result = said.result;
    } else if (!watchdog_reason.empty()) {
        outcome.status = FailureClass::Timeout;
        outcome.message = watchdog_reason;
    } else {
        classify_silent_end(outcome, status);
    }
    return outcome;
}

}  // namespace

Result<fs::path> find_worker_executable() { return locate_worker(); }

// One worker from its start to its end: the pipes, the channel read so far, and the watchdog.
struct WorkerConversation::Running {
    Running(const WorkerOptions& o, std::string nonce, Clock::time_point started)
        : options(o), start(started),
          channel(std::move(nonce), [started] { return std::chrono::duration<double>(Clock::now() - started).count(); },
                  o.on_progress) {}
    ~Running() {
        if (stdin_fd >= 0) ::close(stdin_fd);
        for (auto& p : fds)
            if (p.fd >= 0) ::close(p.fd);
    }

    // Reads the channel (message by message) and the log (bounded) until `done` says so or the
    // worker has closed both, killing its process group when it goes silent or runs out of time.
    // The watchdog counts only while kernelpro waits here: a worker waiting for a follow-up is not silent.
    void pump(const std::function<bool()>& done) {
        auto last_message = Clock::now();
        char buffer[65536];
        while (open_count > 0 && !done()) {
            auto now = Clock::now();
            if (watchdog_reason.empty() && (now - last_message > options.watchdog || now - start > options.total_limit)) {
                watchdog_reason = now - start > options.total_limit
                                      ? "the evaluation exceeded its total time limit"
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
                    channel.feed(std::string_view(buffer, static_cast<size_t>(n)));
                } else if (outcome.log.size() < options.max_log_bytes) {
                    outcome.log.append(buffer, std::min(static_cast<size_t>(n), options.max_log_bytes - outcome.log.size()));
                }
            }
        }
        if (open_count == 0) channel.finish();
    }

    void close_stdin() {
        if (stdin_fd >= 0) ::close(stdin_fd);
        stdin_fd = -1;
    }

    WorkerOptions options;
    Clock::time_point start;
    WorkerChannelReader channel;
    WorkerOutcome outcome;
    std::optional<ScratchDirectory> scratch;
    std::optional<ChildGroupRegistration> registration;  // a SIGINT/SIGTERM of kernelpro kills the worker too
    pid_t pid = -1;
    int stdin_fd = -1;
    pollfd fds[2] = {{-1, POLLIN, 0}, {-1, POLLIN, 0}};  // the channel, the log
    int open_count = 2;
    std::string watchdog_reason;
    size_t collections_taken = 0;
    bool ended = false;
};

WorkerConversation::WorkerConversation(std::unique_ptr<Running> running) : running_(std::move(running)) {}
WorkerConversation::WorkerConversation(WorkerConversation&&) noexcept = default;
WorkerConversation& WorkerConversation::operator=(WorkerConversation&&) noexcept = default;

WorkerConversation::~WorkerConversation() {
    if (!running_ || running_->ended) return;
    running_->close_stdin();
    ::kill(-running_->pid, SIGKILL);
    ::kill(running_->pid, SIGKILL);
    int status = 0;
    while (::waitpid(running_->pid, &status, 0) < 0 && errno == EINTR) {
    }
}

Result<WorkerConversation> WorkerConversation::start(const WorkerRequest& original, const WorkerOptions& options) {
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
    std::vector<std::string> env_strings = worker_environment(options.environment);
    std::vector<char*> env;
    for (auto& e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<std::string> launch = options.launcher.empty() ? std::vector<std::string>{exe} : options.launcher;
    launch.insert(launch.end(), {"--channel-fd", std::to_string(kChannelFd)});
    std::vector<char*> argv;  // built before fork: the child only calls async-signal-safe functions
    for (auto& part : launch) argv.push_back(part.data());
    argv.push_back(nullptr);
    auto running = std::make_unique<Running>(options, request.nonce, Clock::now());
    if (scratch) running->scratch.emplace(std::move(*scratch));
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        prepare_child_after_fork(parent);
        ::dup2(in_pipe[0], 0);
        ::dup2(log_pipe[1], 1);
        ::dup2(log_pipe[1], 2);
        ::dup2(channel_pipe[1], kChannelFd);  // dup2 clears CLOEXEC on the new descriptor
        ::execve(exe.c_str(), argv.data(), env.data());
        _exit(127);
    }
    ::setpgid(pid, pid);
    running->pid = pid;
    running->registration.emplace(pid);
    ::close(in_pipe[0]);
    ::close(log_pipe[1]);
    ::close(channel_pipe[1]);
    running->stdin_fd = in_pipe[1];
    running->fds[0].fd = channel_pipe[0];
    running->fds[1].fd = log_pipe[0];
    // The request is small (paths and the task description): one line, written whole. Without
    // follow-ups stdin ends with it.
    (void)write_to_pipe(in_pipe[1], dump_json(to_json(request)) + "\n");  // a worker that died at start reads nothing
    if (!request.follow_ups) running->close_stdin();
    return WorkerConversation(std::move(running));
}

std::optional<nlohmann::json> WorkerConversation::next_collection() {
    Running& r = *running_;
    r.pump([&r] { return r.channel.state().collections.size() > r.collections_taken; });
    const ChannelState& said = r.channel.state();
    // Whatever the channel carried that the worker did not write, or the sandbox ended, spoils it.
    if (!said.forged.empty() || !said.violation.empty() || said.collections.size() <= r.collections_taken) return std::nullopt;
    return said.collections[r.collections_taken++].value("counters", nlohmann::json());
}

Status WorkerConversation::send(const nlohmann::json& follow_up) {
    Running& r = *running_;
    if (r.stdin_fd < 0) return make_error("the worker takes no follow-up (its stdin is closed)");
    if (!write_to_pipe(r.stdin_fd, dump_json(follow_up) + "\n")) return make_error("the worker did not read its follow-up (it ended?)");
    return {};
}

Result<WorkerOutcome> WorkerConversation::finish() {
    Running& r = *running_;
    r.close_stdin();
    r.pump([] { return false; });
    int status = 0;
    while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::kill(-r.pid, SIGKILL);  // anything the candidate may have left in the group
    r.ended = true;
    r.outcome.wall_seconds = std::chrono::duration<double>(Clock::now() - r.start).count();
    auto classified = classify_ending(r.channel.state(), status, r.watchdog_reason, std::move(r.outcome));
    if (classified.ok()) classified->log = valid_utf8(classified->log);  // what candidate code printed: any bytes
    return classified;
}

Result<WorkerOutcome> run_worker(const WorkerRequest& request, const WorkerOptions& options) {
    auto conversation = WorkerConversation::start(request, options);
    if (!conversation) return conversation.error();
    return conversation->finish();
}

}  // namespace kp
