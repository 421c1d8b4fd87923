#include "sandbox/supervisor.h"

#include <linux/seccomp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "sandbox/call_judge.h"
#include "sandbox/proc_view.h"

namespace kp::sandbox {

namespace {

constexpr size_t kMaxControlMessage = 256 * 1024;

Status send_message(int control_fd, const std::string& text, int fd_to_pass) {
    iovec data{const_cast<char*>(text.data()), text.size()};
    msghdr msg{};
    msg.msg_iov = &data;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    if (fd_to_pass >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd_to_pass, sizeof(int));
    }
    if (::sendmsg(control_fd, &msg, MSG_NOSIGNAL) < 0) return make_error(std::string("control socket: ") + std::strerror(errno));
    return {};
}

struct ControlMessage {
    std::string text;
    int fd = -1;
    pid_t sender = 0;  // in this process's pid namespace (SO_PASSCRED)
};

// One message; nullopt at end of file.
std::optional<ControlMessage> receive(int control_fd) {
    std::string buffer(kMaxControlMessage, '\0');
    iovec data{buffer.data(), buffer.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(ucred))] = {};
    msghdr msg{};
    msg.msg_iov = &data;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(control_fd, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) return std::nullopt;
    ControlMessage m;
    m.text = buffer.substr(0, static_cast<size_t>(n));
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET) continue;
        if (c->cmsg_type == SCM_RIGHTS) std::memcpy(&m.fd, CMSG_DATA(c), sizeof(int));
        if (c->cmsg_type == SCM_CREDENTIALS) {
            ucred cred{};
            std::memcpy(&cred, CMSG_DATA(c), sizeof cred);
            m.sender = cred.pid;
        }
    }
    return m;
}

constexpr size_t kMaxNotes = 16;

// What the supervisor knows once the child's sandbox is on.
struct Watch {
    int listener = -1;
    FilesystemPolicy policy;
    SandboxedProcess process;
    pid_t worker = 0;
    std::vector<std::string> notes;

    void note(const std::string& message) {
        if (notes.size() < kMaxNotes && std::find(notes.begin(), notes.end(), message) == notes.end()) notes.push_back(message);
    }
};

// The kernel's size of struct seccomp_notif, which must be zero before each receive.
size_t notification_size() {
    static const size_t size = [] {
        seccomp_notif_sizes sizes{};
        if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return sizeof(seccomp_notif);
        return std::max<size_t>(sizes.seccomp_notif, sizeof(seccomp_notif));
    }();
    return size;
}

// Answers one notification; returns the violation message when it is one.
std::optional<std::string> answer(Watch& watch, seccomp_notif* request, seccomp_notif_resp* response) {
    std::memset(request, 0, notification_size());
    if (seccomp_notify_receive(watch.listener, request) != 0) return std::nullopt;  // the caller went away
    SystemCall call;
    call.nr = request->data.nr;
    for (int i = 0; i < 6; ++i) call.args[static_cast<size_t>(i)] = request->data.args[i];
    call.instruction_pointer = request->data.instruction_pointer;
    call.thread = static_cast<pid_t>(request->pid);
    ProcProcessView view;
    Ruling ruling = judge_system_call(call, watch.policy, watch.process, view);
    if (ruling.violation && ruling.message.find("another process") != std::string::npos && watch.worker > 0) {
        watch.process.own_ids = describe_sandboxed_process(watch.worker).own_ids;  // threads started since
        ruling = judge_system_call(call, watch.policy, watch.process, view);
    }
    response->id = request->id;
    response->val = 0;
    response->error = ruling.allow ? 0 : -ruling.error;
    response->flags = ruling.allow ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
    if (seccomp_notify_id_valid(watch.listener, request->id) == 0) (void)seccomp_notify_respond(watch.listener, response);
    if (ruling.note) watch.note(ruling.message);
    if (ruling.violation) return ruling.message;
    return std::nullopt;
}

void take_control_message(const ControlMessage& m, Watch& watch, std::string& retry_reason) {
    if (m.text.rfind("retry:", 0) == 0) {
        retry_reason = m.text.substr(6);
    } else if (m.text.rfind("ready:", 0) == 0) {
        auto j = nlohmann::json::parse(m.text.substr(6), nullptr, false);
        if (!j.is_discarded()) watch.policy = FilesystemPolicy::from_json(j.value("policy", nlohmann::json::object()));
        watch.listener = m.fd;
        watch.worker = m.sender > 0 ? m.sender : watch.worker;
        if (watch.worker > 0) watch.process = describe_sandboxed_process(watch.worker);
    } else if (m.fd >= 0) {
        ::close(m.fd);
    }
}

}  // namespace

Status send_ready(int control_fd, int listener_fd, const FilesystemPolicy& policy) {
    return send_message(control_fd, "ready:" + nlohmann::json{{"policy", policy.to_json()}}.dump(), listener_fd);
}

Status send_retry(int control_fd, const std::string& reason) { return send_message(control_fd, "retry:" + reason, -1); }

SupervisionEnd supervise(pid_t child, int control_fd) {
    int on = 1;
    ::setsockopt(control_fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    seccomp_notif* request = nullptr;
    seccomp_notif_resp* response = nullptr;
    if (seccomp_notify_alloc(&request, &response) != 0) request = nullptr;
    Watch watch;
    std::string retry_reason;
    SupervisionEnd end;
    // Readable when the child ends (kernel 5.3+); without it the loop polls every 100 ms.
    int child_fd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
    for (;;) {
        pollfd fds[3];
        nfds_t n = 0;
        if (control_fd >= 0) fds[n++] = {control_fd, POLLIN, 0};
        if (watch.listener >= 0 && request) fds[n++] = {watch.listener, POLLIN, 0};
        if (child_fd >= 0) fds[n++] = {child_fd, POLLIN, 0};
        if (::poll(fds, n, child_fd >= 0 ? 1000 : 100) < 0 && errno != EINTR) break;
        for (nfds_t i = 0; i < n; ++i) {
            if (!fds[i].revents || fds[i].fd == child_fd) continue;
            if (fds[i].fd == control_fd) {
                auto m = receive(control_fd);
                if (m) take_control_message(*m, watch, retry_reason);
                else control_fd = -1;  // the child closed its end (or is gone)
            } else if (fds[i].revents & POLLIN) {
                if (auto violation = answer(watch, request, response)) {
                    ::kill(child, SIGKILL);
                    while (::waitpid(child, &end.wait_status, 0) < 0 && errno == EINTR) {
                    }
                    end.kind = SupervisionEnd::Kind::violation;
                    end.message = *violation;
                    end.notes = watch.notes;
                    if (request) seccomp_notify_free(request, response);
                    if (child_fd >= 0) ::close(child_fd);
                    return end;
                }
            } else {
                ::close(watch.listener);  // every thread using the filter is gone
                watch.listener = -1;
            }
        }
        pid_t done = ::waitpid(child, &end.wait_status, WNOHANG);
        if (done == child || (done < 0 && errno == ECHILD)) break;
    }
    if (request) seccomp_notify_free(request, response);
    if (watch.listener >= 0) ::close(watch.listener);
    if (child_fd >= 0) ::close(child_fd);
    const bool asked_to_retry = !retry_reason.empty() && WIFEXITED(end.wait_status) && WEXITSTATUS(end.wait_status) == kRetryExitCode;
    end.kind = asked_to_retry ? SupervisionEnd::Kind::retry : SupervisionEnd::Kind::exited;
    end.message = retry_reason;
    end.notes = watch.notes;
    return end;
}

void end_like(int wait_status) {
    if (WIFSIGNALED(wait_status)) {
        int sig = WTERMSIG(wait_status);
        ::signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
        ::kill(::getpid(), sig);
        ::kill(::getpid(), SIGKILL);  // a signal whose default is not to end the process
    }
    ::_exit(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 1);
}

}  // namespace kp::sandbox
