#include "sandbox/confinement.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "common/process.h"
#include "sandbox/landlock.h"
#include "sandbox/namespaces.h"
#include "sandbox/resource_limits.h"
#include "sandbox/seccomp_filter.h"
#include "sandbox/supervisor.h"
#include "sandbox/worker_policy.h"

namespace kp::sandbox {

namespace {

constexpr const char* kDisabledByEnvironment = "disabled by KERNELPRO_SANDBOX_DISABLE";
constexpr const char* kProfilerShares = "profile_run mode: a profiler attached from outside shares the worker's process";

bool wants_supervisor(const ConfinementOptions& o) {
    return !o.profiler_attached && !(o.settings.is_disabled(kNamespaces) && o.settings.is_disabled(kSeccomp));
}

LayerStatus namespaces_off(const ConfinementOptions& o) {
    return {kNamespaces, LayerState::disabled, o.profiler_attached ? kProfilerShares : kDisabledByEnvironment};
}

// Test hook: take the unprivileged path (a user namespace first) even as root.
bool force_user_namespace() {
    const char* v = std::getenv("KERNELPRO_SANDBOX_USER_NAMESPACE");
    return v && std::strcmp(v, "1") == 0;
}

[[noreturn]] void retry(int control_fd, const std::string& why) {
    (void)send_retry(control_fd, why);
    ::_exit(kRetryExitCode);
}

// Unshares the namespaces in this (single-threaded) process and forks their first process, which
// is the one that returns; this one waits for it and ends the same way.
std::string enter_namespaces(int control_fd) {
    auto unshared = unshare_namespaces(force_user_namespace() || !can_create_namespaces_directly());
    if (!unshared) retry(control_fd, unshared.error().message);
    pid_t first = ::fork();
    if (first < 0) retry(control_fd, std::string("fork into the new pid namespace: ") + std::strerror(errno));
    if (first > 0) {
        ::close(control_fd);
        int status = 0;
        while (::waitpid(first, &status, 0) < 0 && errno == EINTR) {
        }
        end_like(status);
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (auto mounted = mount_own_proc(); !mounted) retry(control_fd, mounted.error().message);
    return *unshared;
}

// The supervisor's messages, written once the child is gone (so they never split one of its lines).
void report(const ConfinementOptions& o, nlohmann::json message) {
    message["nonce"] = o.nonce;
    if (o.channel_fd >= 0) (void)write_to_pipe(o.channel_fd, message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

LayerStatus apply_limits(const ConfinementOptions& o) {
    const SandboxSettings& s = o.settings;
    if (s.is_disabled(kRlimits)) return {kRlimits, LayerState::disabled, kDisabledByEnvironment};
    // A profiler in the process writes what it needs (replay data, a trace): no caps for it.
    if (o.profiler_attached) {
        rlimit no_core{0, 0};
        if (::setrlimit(RLIMIT_CORE, &no_core) != 0) return {kRlimits, LayerState::unavailable, std::strerror(errno)};
        return {kRlimits, LayerState::active, "no core files (profile_run: no file-size or descriptor caps)"};
    }
    auto applied = apply_resource_limits(s.max_file_bytes);
    if (!applied) return {kRlimits, LayerState::unavailable, applied.error().message};
    return {kRlimits, LayerState::active, *applied};
}

LayerStatus apply_landlock(const ConfinementOptions& o, const FilesystemPolicy& policy) {
    if (o.profiler_attached) return {kLandlock, LayerState::disabled, kProfilerShares};
    if (o.settings.is_disabled(kLandlock)) return {kLandlock, LayerState::disabled, kDisabledByEnvironment};
    auto applied = restrict_with_landlock(policy, LandlockScope{});
    if (!applied) return {kLandlock, LayerState::unavailable, applied.error().message};
    return {kLandlock, LayerState::active, *applied};
}

LayerStatus apply_seccomp(const ConfinementOptions& o, bool supervised, int* listener) {
    if (o.settings.is_disabled(kSeccomp)) return {kSeccomp, LayerState::disabled, kDisabledByEnvironment};
    FilterOptions filter{supervised, o.profiler_attached, ::getpid()};
    auto loaded = load_seccomp_filter(filter);
    std::string unreported;
    if (!loaded && filter.notify) {
        unreported = loaded.error().message;
        filter.notify = false;
        loaded = load_seccomp_filter(filter);
    }
    if (!loaded) return {kSeccomp, LayerState::unavailable, loaded.error().message};
    *listener = loaded->listener;
    std::string detail = std::to_string(loaded->rules) + " rules" +
                         (o.profiler_attached ? " (profile_run: processes, debugging, sandbox and system calls only)" : "");
    detail += filter.notify ? "; a violation ends the evaluation, reported by the supervisor"
                            : "; denied calls fail with EPERM" + (unreported.empty() ? std::string() : " (not reported: " + unreported + ")");
    return {kSeccomp, LayerState::active, detail};
}

}  // namespace

Confinement::Confinement(ConfinementOptions options, int control_fd, LayerStatus namespaces)
    : options_(std::move(options)), control_fd_(control_fd) {
    report_.set(std::move(namespaces));
}

bool Confinement::inside_namespaces() const {
    const LayerStatus* ns = report_.find(kNamespaces);
    return ns && ns->state == LayerState::active;
}

void Confinement::retry_without_namespaces(const std::string& why) {
    if (inside_namespaces() && control_fd_ >= 0) retry(control_fd_, why);
}

SandboxReport Confinement::preflight() const {
    const SandboxSettings& s = options_.settings;
    SandboxReport r;
    r.set(*report_.find(kNamespaces));
    LandlockAbi abi = landlock_abi();
    if (options_.profiler_attached) r.set({kLandlock, LayerState::disabled, kProfilerShares});
    else if (s.is_disabled(kLandlock)) r.set({kLandlock, LayerState::disabled, kDisabledByEnvironment});
    else if (abi.version == 0) r.set({kLandlock, LayerState::unavailable, abi.reason});
    else r.set({kLandlock, LayerState::active, "ABI " + std::to_string(abi.version)});
    if (s.is_disabled(kSeccomp)) r.set({kSeccomp, LayerState::disabled, kDisabledByEnvironment});
    else if (::prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) r.set({kSeccomp, LayerState::unavailable, "this kernel has no seccomp"});
    else r.set({kSeccomp, LayerState::active, "filter available"});
    r.set(s.is_disabled(kRlimits) ? LayerStatus{kRlimits, LayerState::disabled, kDisabledByEnvironment}
                                  : LayerStatus{kRlimits, LayerState::active, "limits available"});
    return r;
}

const SandboxReport& Confinement::enter(const std::vector<std::string>& library_files) {
    if (entered_) return report_;
    entered_ = true;
    const SandboxSettings& s = options_.settings;
    if (!s.scratch.empty() && ::chdir(s.scratch.c_str()) == 0) ::setenv("TMPDIR", s.scratch.c_str(), 1);
    policy_ = worker_filesystem_policy(s, library_files);
    // In this order: the filter denies what the first two use (setrlimit, Landlock's calls).
    report_.set(apply_limits(options_));
    report_.set(apply_landlock(options_, policy_));
    int listener = -1;
    report_.set(apply_seccomp(options_, control_fd_ >= 0, &listener));
    if (control_fd_ >= 0) {
        if (!send_ready(control_fd_, listener, policy_) && listener >= 0) {
            // Nobody would answer the filter's notifications: every file access would hang.
            std::fprintf(stderr, "kernelpro-worker: cannot reach the sandbox supervisor\n");
            ::_exit(70);
        }
        if (listener >= 0) ::close(listener);  // only the supervisor may hold it
        ::close(control_fd_);
        control_fd_ = -1;
    }
    return report_;
}

int run_confined(const ConfinementOptions& options, const std::function<int(Confinement&)>& body) {
    if (!wants_supervisor(options)) {
        Confinement unsupervised(options, -1, namespaces_off(options));
        return body(unsupervised);
    }
    std::fflush(nullptr);
    const bool try_namespaces = !options.settings.is_disabled(kNamespaces);
    std::string namespace_failure;
    for (int attempt = try_namespaces ? 0 : 1; attempt < 2; ++attempt) {
        const bool with_namespaces = attempt == 0;
        int pair[2];
        pid_t child = -1;
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) == 0) {
            int on = 1;  // the child's pid, as this process sees it, comes with its messages
            ::setsockopt(pair[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
            child = ::fork();
        }
        if (child < 0) {  // no supervisor possible: the filter then denies with EPERM
            Confinement unsupervised(options, -1, {kNamespaces, LayerState::unavailable, std::string("cannot start the supervised child: ") + std::strerror(errno)});
            return body(unsupervised);
        }
        if (child == 0) {
            ::close(pair[0]);
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            LayerStatus ns = try_namespaces ? LayerStatus{kNamespaces, LayerState::unavailable, namespace_failure} : namespaces_off(options);
            if (with_namespaces) ns = {kNamespaces, LayerState::active, enter_namespaces(pair[1])};
            Confinement confined(options, pair[1], ns);
            ::_exit(body(confined));
        }
        ::close(pair[1]);
        SupervisionEnd end = supervise(child, pair[0]);
        ::close(pair[0]);
        if (end.kind == SupervisionEnd::Kind::retry && with_namespaces) {
            namespace_failure = end.message;
            continue;
        }
        if (!end.notes.empty()) report(options, {{"type", "sandbox_notes"}, {"notes", end.notes}});
        if (end.kind == SupervisionEnd::Kind::violation) {
            report(options, {{"type", "sandbox_violation"}, {"message", end.message}});
            ::_exit(0);
        }
        end_like(end.wait_status);
    }
    ::_exit(1);
}

}  // namespace kp::sandbox
