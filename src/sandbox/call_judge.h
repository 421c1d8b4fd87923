// The supervisor's ruling on one system call the filter handed over: a denied call is a violation;
// a call that names a path is let through when the path is inside the filesystem policy (Landlock
// still enforces it in the kernel) and is a violation otherwise. Threads that CUDA or the trusted
// reference started before the sandbox are not candidate code: what they are denied fails with
// EPERM and their reads outside the policy pass, both as notes rather than violations (their
// writes outside the scratch folder stay violations). Paths are resolved as the
// sandboxed process sees them, /proc/self, /proc/PID/cwd and /proc/PID/fd/N included; /proc
// entries of other processes are violations. The ruling only reports: Landlock and the filter
// enforce, so a path that changes between this check and the kernel's own still gets nowhere.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "sandbox/filesystem_policy.h"
#include "sandbox/seccomp_filter.h"

namespace kp::sandbox {

struct SystemCall {
    int nr = -1;
    std::array<uint64_t, 6> args{};
    uint64_t instruction_pointer = 0;
    pid_t thread = 0;  // the caller's thread id, as the supervisor sees it
};

// How the supervisor looks into the sandboxed process (over /proc and process_vm_readv; a test
// stands in its own).
class ProcessView {
public:
    virtual ~ProcessView() = default;
    virtual std::optional<std::string> read_string(pid_t thread, uint64_t address) const = 0;
    virtual std::optional<uint64_t> read_word(pid_t thread, uint64_t address) const = 0;
    // Targets of /proc/THREAD/cwd, /proc/THREAD/root, /proc/THREAD/fd/N ("link" is "cwd", "fd/3" ...).
    virtual std::optional<std::string> proc_link(pid_t thread, const std::string& link) const = 0;
    // Follows symbolic links outside /proc; the part that does not exist is kept as written.
    virtual std::string canonical(const std::string& absolute_path) const = 0;
    // Whether a canonical path outside /proc names something (reading what is not there only
    // teaches ENOENT, as the C library's search of LD_LIBRARY_PATH does all the time).
    virtual bool exists(const std::string& canonical_path) const = 0;
    virtual std::string thread_name(pid_t thread) const = 0;
    virtual std::string object_at(pid_t thread, uint64_t address) const = 0;  // "libc.so.6", or ""
};

struct SandboxedProcess {
    std::set<long> own_ids;            // its process and thread ids, as it sees them (for /proc/N)
    std::set<pid_t> threads_before;    // the supervisor's ids of threads that predate the sandbox
                                       // (CUDA's and the reference's), the main thread excluded
};

struct Ruling {
    bool allow = false;   // let the kernel run it (Landlock still applies)
    int error = 0;        // errno to answer when not allowed
    bool violation = false;  // ends the evaluation
    bool note = false;       // worth reporting, not a violation (a thread from before the sandbox, the driver's device nodes)
    std::string message;  // "sandbox: execve(\"/bin/sh\") denied: ..."
};

Ruling judge_system_call(const SystemCall& call, const FilesystemPolicy& policy, const SandboxedProcess& process,
                         const ProcessView& view);

}  // namespace kp::sandbox
