// The supervisor: the worker's first process, which never loads CUDA or candidate code. It starts
// the sandboxed child, receives the child's seccomp notification descriptor once the sandbox is
// on, answers every call the filter hands over (see call_judge.h), and on the first violation
// ends the child and says why. The candidate cannot reach it: it is outside the child's
// namespaces, Landlock domain and filter, and seccomp offers no way to forge or hide a notification.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "sandbox/filesystem_policy.h"

namespace kp::sandbox {

// The child's side of the control socket (a SOCK_SEQPACKET pair made before the child starts).
// "ready" carries the notification descriptor (or none) and the filesystem policy; "retry" says
// the namespaces could not be set up, or CUDA did not start inside them.
// The exit code of a child that asked to be replaced by one without namespaces.
inline constexpr int kRetryExitCode = 86;

Status send_ready(int control_fd, int listener_fd, const FilesystemPolicy& policy);
Status send_retry(int control_fd, const std::string& reason);

struct SupervisionEnd {
    enum class Kind { exited, violation, retry };
    Kind kind = Kind::exited;
    int wait_status = 0;  // how the child ended (waitpid status)
    std::string message;  // the violation, or why to retry
    std::vector<std::string> notes;  // calls of threads from before the sandbox (call_judge.h), first few
};

// Watches `child` (which is, or starts, the sandboxed process) until it ends or violates the
// sandbox; `control_fd` is the supervisor's side of the control socket.
SupervisionEnd supervise(pid_t child, int control_fd);

// Ends this process the way `wait_status` says a child ended: the same exit code, or the same
// signal (so the orchestrator classifies the worker as if there were no supervisor).
[[noreturn]] void end_like(int wait_status);

}  // namespace kp::sandbox
