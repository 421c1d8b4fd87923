#include "common/process.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "common/child_processes.h"

extern char** environ;

namespace kp {

std::string shell_quote(const std::string& argument) {
    if (!argument.empty() &&
        argument.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") ==
            std::string::npos) {
        return argument;
    }
    std::string quoted = "'";
    for (char c : argument) {
        if (c == '\'') quoted += "'\\''";
        else quoted += c;
    }
    return quoted + "'";
}

std::string join_command_line(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& a : argv) {
        if (!line.empty()) line += ' ';
        line += shell_quote(a);
    }
    return line;
}

std::string ProcessResult::describe_failure() const {
    std::ostringstream out;
    out << "`" << command_line << "` ";
    if (timed_out) out << "timed out after " << wall_seconds << " s";
    else if (signaled) out << "was killed by signal " << term_signal << " (" << strsignal(term_signal) << ")";
    else out << "exited with " << exit_code;
    return out.str();
}

std::optional<std::string> find_executable(const std::string& name) {
    auto executable = [](const std::string& p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
    };
    if (name.find('/') != std::string::npos) return executable(name) ? std::optional(name) : std::nullopt;
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) continue;
        std::string candidate = dir + "/" + name;
        if (executable(candidate)) return candidate;
    }
    return std::nullopt;
}

namespace {

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::vector<std::string> build_environment(const std::map<std::string, std::string>& extra) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        std::string entry(*e);
        auto eq = entry.find('=');
        if (eq != std::string::npos && extra.count(entry.substr(0, eq))) continue;
        env.push_back(entry);
    }
    for (const auto& [k, v] : extra) env.push_back(k + "=" + v);
    return env;
}

}  // namespace

Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
    if (argv.empty()) return make_error("run_process: empty command");
    auto program = find_executable(argv[0]);
    ProcessResult result;
    result.command_line = join_command_line(argv);
    if (!program) return make_error("cannot run `" + result.command_line + "`: " + argv[0] + " not found in PATH");

    int out_pipe[2], err_pipe[2], in_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 || ::pipe2(in_pipe, O_CLOEXEC) != 0)
        return make_error(std::string("pipe: ") + std::strerror(errno));

    std::vector<std::string> env_strings = build_environment(options.extra_environment);
    std::vector<char*> env_ptrs;
    for (auto& s : env_strings) env_ptrs.push_back(s.data());
    env_ptrs.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> arg_ptrs;
    for (auto& s : args) arg_ptrs.push_back(s.data());
    arg_ptrs.push_back(nullptr);

    auto start = std::chrono::steady_clock::now();
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        prepare_child_after_fork(parent);  // own process group, so a timeout kills the whole tree
        ::dup2(in_pipe[0], 0);
        ::dup2(out_pipe[1], 1);
        ::dup2(err_pipe[1], 2);
        if (options.working_directory && ::chdir(options.working_directory->c_str()) != 0) _exit(127);
        ::execve(program->c_str(), arg_ptrs.data(), env_ptrs.data());
        _exit(127);
    }
    ::setpgid(pid, pid);  // also here, so the group exists before it is registered or killed
    ChildGroupRegistration registration(pid);
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);

    // Feed stdin (small inputs only) and close it.
    if (options.stdin_data) {
        (void)write_to_pipe(in_pipe[1], *options.stdin_data);  // a child that exited early reads nothing
    }
    ::close(in_pipe[1]);

    set_nonblocking(out_pipe[0]);
    set_nonblocking(err_pipe[0]);
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    std::string* sinks[2] = {&result.stdout_text, &result.stderr_text};
    int open_count = 2;
    char buffer[65536];
    auto deadline = start + options.timeout;
    while (open_count > 0) {
        auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            result.timed_out = true;
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            break;
        }
        int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count());
        int ready = ::poll(fds, 2, std::min(wait_ms, 1000));
        if (ready < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) sinks[i]->append(buffer, static_cast<size_t>(n));
            else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_count;
            }
        }
    }
    for (auto& f : fds)
        if (f.fd >= 0) ::close(f.fd);

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    // Children of the tool (e.g. nvcc's cicc) may linger after a timeout: the group kill covers them.
    if (result.timed_out) ::kill(-pid, SIGKILL);
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.timed_out) {
        if (WIFSIGNALED(status)) {
            result.signaled = true;
            result.term_signal = WTERMSIG(status);
        } else if (WIFEXITED(status)) {
            result.exit_code = WEXITSTATUS(status);
        }
    }
    return result;
}

bool write_to_pipe(int fd, std::string_view data) {
    sigset_t pipe_signal, previous;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, &previous);
    bool complete = true;
    int error = 0;
    for (size_t written = 0; written < data.size();) {
        ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            complete = false;
            error = errno;
            break;
        }
        written += static_cast<size_t>(n);
    }
    // A write to a closed pipe left a SIGPIPE pending on this thread: take it before unblocking.
    if (error == EPIPE && !sigismember(&previous, SIGPIPE)) {
        timespec no_wait{0, 0};
        sigtimedwait(&pipe_signal, nullptr, &no_wait);
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return complete;
}

}  // namespace kp
