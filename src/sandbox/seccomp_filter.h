// The system-call filter around candidate code (libseccomp), installed on every thread of the
// process at once (TSYNC) after CUDA is up and the trusted reference has run. It is a deny list,
// not an allow list, so that whatever the CUDA driver and a PyTorch reference need at run time
// (ioctl, mmap, futex, threads, clocks, poll, eventfd ...) keeps working:
//   - no programs (execve, execveat), no processes (fork, vfork, clone without CLONE_THREAD;
//     clone3 answers ENOSYS so the C library falls back to clone, whose flags the filter can see);
//   - no reaching into other processes (ptrace, process_vm_*, pidfd_getfd, kcmp) and no signals to
//     other processes or other threads;
//   - no sockets (socket, socketpair, connect, bind, listen, accept);
//   - no changes to the sandbox (seccomp, the prctl options that weaken it, unshare, setns,
//     setrlimit, set*id, Landlock) or to the system (mounts, modules, bpf, io_uring, clocks, keys,
//     POSIX message queues);
//   - no changes to file attributes (chmod, chown, xattrs, times: Landlock does not cover them).
// Supervised, every denied call and every call that names a path goes to the supervisor process
// (SECCOMP_RET_USER_NOTIF), which answers, reports and ends the worker on a violation; otherwise a
// denied call fails with EPERM. System calls of another ABI (int 0x80, x32) kill the process.
#pragma once

#include <sys/types.h>

#include <string>

#include "common/result.h"

namespace kp::sandbox {

struct FilterOptions {
    bool notify = true;              // hand calls to the supervisor; false: denied calls get EPERM
    bool profiler_attached = false;  // a profiler shares the process: keep only the process,
                                     // debugging, sandbox and system rules (sockets, signals
                                     // between threads and file attributes stay allowed)
    pid_t self_pid = 0;              // getpid() as the sandboxed process sees it
};

struct LoadedFilter {
    int listener = -1;  // the notification descriptor (notify only)
    int rules = 0;
};

// Installs the filter on every thread (no_new_privs first). An error leaves no filter behind.
Result<LoadedFilter> load_seccomp_filter(const FilterOptions& options);

// True when the kernel and libseccomp support user notification with TSYNC.
bool seccomp_notification_available();

struct SystemCallInfo {
    std::string name;    // "execve", or "syscall 999"
    std::string reason;  // "starting programs is not allowed" ("" for path calls)
    bool names_a_path = false;  // open, mkdir, unlink ...: the supervisor checks the path
};

// What the filter says about system call `nr` of this architecture.
SystemCallInfo describe_system_call(int nr);

}  // namespace kp::sandbox
