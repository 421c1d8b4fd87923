#include "sandbox/seccomp_filter.h"

#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kp::sandbox {

namespace {

// When a rule applies. Arguments the kernel reads as 32-bit values are compared under a 32-bit
// mask, so that upper bits set by the caller cannot slip past an equality test.
enum class When {
    always,
    clone_without_thread,   // arg0 lacks CLONE_THREAD
    target_not_self,        // arg0 (a pid) is not this process
    targets_not_self,       // arg0 or arg1 (pid, thread id) is not this process's main thread
    weakening_prctl,        // arg0 is a prctl option that weakens the sandbox
    sets_limit,             // prlimit64 with a new limit
    signal_owner_fcntl,     // fcntl F_SETOWN / F_SETOWN_EX / F_SETSIG: signals aimed at a thread
};

enum Group : unsigned { kPrograms, kProcesses, kDebugging, kSignals, kSockets, kSandbox, kLimits, kSystem, kAttributes, kPaths };

const char* const kGroupReason[] = {
    "starting programs is not allowed",
    "new processes are not allowed",
    "reaching into other processes is not allowed",
    "signals to other processes or threads are not allowed",
    "sockets are not allowed (no network)",
    "changing the sandbox is not allowed",
    "changing the sandbox is not allowed",
    "changing the system is not allowed",
    "changing file attributes is not allowed",
    "",
};

struct Rule {
    const char* name;
    Group group;
    When when = When::always;
};

// Groups kept when a profiler shares the process: it may talk to its front end over a socket,
// signal, set limits and the attributes of the files it writes, so only these stay denied.
bool kept_with_profiler(Group g) { return g == kPrograms || g == kProcesses || g == kDebugging || g == kSandbox || g == kSystem; }

const std::vector<Rule>& rules() {
    static const std::vector<Rule> list{
        {"execve", kPrograms}, {"execveat", kPrograms},
        {"fork", kProcesses}, {"vfork", kProcesses}, {"clone", kProcesses, When::clone_without_thread},
        {"ptrace", kDebugging}, {"process_vm_readv", kDebugging}, {"process_vm_writev", kDebugging},
        {"process_madvise", kDebugging}, {"pidfd_getfd", kDebugging}, {"kcmp", kDebugging},
        {"kill", kSignals, When::target_not_self}, {"tkill", kSignals}, {"tgkill", kSignals, When::targets_not_self},
        {"rt_sigqueueinfo", kSignals, When::target_not_self}, {"rt_tgsigqueueinfo", kSignals, When::targets_not_self},
        {"pidfd_send_signal", kSignals}, {"fcntl", kSignals, When::signal_owner_fcntl},
        {"socket", kSockets}, {"socketpair", kSockets}, {"connect", kSockets}, {"bind", kSockets},
        {"listen", kSockets}, {"accept", kSockets}, {"accept4", kSockets},
        {"seccomp", kSandbox}, {"prctl", kLimits, When::weakening_prctl}, {"unshare", kSandbox}, {"setns", kSandbox},
        {"setrlimit", kLimits}, {"prlimit64", kLimits, When::sets_limit}, {"landlock_create_ruleset", kSandbox},
        {"landlock_add_rule", kSandbox}, {"landlock_restrict_self", kSandbox}, {"capset", kLimits},
        {"setuid", kLimits}, {"setgid", kLimits}, {"setreuid", kLimits}, {"setregid", kLimits},
        {"setresuid", kLimits}, {"setresgid", kLimits}, {"setfsuid", kLimits}, {"setfsgid", kLimits},
        {"setgroups", kLimits},
        {"mount", kSystem}, {"umount2", kSystem}, {"pivot_root", kSystem}, {"chroot", kSystem},
        {"open_tree", kSystem}, {"move_mount", kSystem}, {"fsopen", kSystem}, {"fsconfig", kSystem},
        {"fsmount", kSystem}, {"fspick", kSystem}, {"mount_setattr", kSystem}, {"bpf", kSystem},
        {"io_uring_setup", kSystem}, {"io_uring_enter", kSystem}, {"io_uring_register", kSystem},
        {"userfaultfd", kSystem}, {"init_module", kSystem}, {"finit_module", kSystem}, {"delete_module", kSystem},
        {"kexec_load", kSystem}, {"kexec_file_load", kSystem}, {"reboot", kSystem}, {"swapon", kSystem},
        {"swapoff", kSystem}, {"acct", kSystem}, {"settimeofday", kSystem}, {"clock_settime", kSystem},
        {"clock_adjtime", kSystem}, {"adjtimex", kSystem}, {"sethostname", kSystem}, {"setdomainname", kSystem},
        {"syslog", kSystem}, {"quotactl", kSystem}, {"iopl", kSystem}, {"ioperm", kSystem}, {"vhangup", kSystem},
        {"keyctl", kSystem}, {"add_key", kSystem}, {"request_key", kSystem}, {"name_to_handle_at", kSystem},
        {"open_by_handle_at", kSystem}, {"mknod", kSystem}, {"mknodat", kSystem}, {"fanotify_init", kSystem},
        {"mq_open", kSystem}, {"mq_unlink", kSystem}, {"mq_notify", kSystem},
        {"chmod", kAttributes}, {"fchmod", kAttributes}, {"fchmodat", kAttributes}, {"chown", kAttributes},
        {"fchown", kAttributes}, {"lchown", kAttributes}, {"fchownat", kAttributes}, {"setxattr", kAttributes},
        {"lsetxattr", kAttributes}, {"fsetxattr", kAttributes}, {"removexattr", kAttributes},
        {"lremovexattr", kAttributes}, {"fremovexattr", kAttributes}, {"utime", kAttributes},
        {"utimes", kAttributes}, {"futimesat", kAttributes}, {"utimensat", kAttributes},
        // Calls that name a path: Landlock decides, the supervisor reports an attempt outside.
        {"open", kPaths}, {"openat", kPaths}, {"openat2", kPaths}, {"creat", kPaths}, {"truncate", kPaths},
        {"mkdir", kPaths}, {"mkdirat", kPaths}, {"rmdir", kPaths}, {"unlink", kPaths}, {"unlinkat", kPaths},
        {"rename", kPaths}, {"renameat", kPaths}, {"renameat2", kPaths}, {"link", kPaths}, {"linkat", kPaths},
        {"symlink", kPaths}, {"symlinkat", kPaths},
    };
    return list;
}

// Calls newer than the libseccomp of Debian 12 knows by name (x86_64 numbers).
struct NumberedCall {
    const char* name;
    int nr;
    Group group;
};
const std::vector<NumberedCall>& newer_calls() {
#if defined(__x86_64__)
    static const std::vector<NumberedCall> list{
        {"quotactl_fd", 443, kSystem}, {"fchmodat2", 452, kAttributes}, {"setxattrat", 463, kAttributes},
        {"removexattrat", 466, kAttributes}, {"open_tree_attr", 467, kSystem}};
#else
    static const std::vector<NumberedCall> list;
#endif
    return list;
}

int resolve(const char* name) {
    for (const auto& c : newer_calls())
        if (std::strcmp(c.name, name) == 0) return c.nr;
    return seccomp_syscall_resolve_name(name);
}

constexpr uint64_t kLow32 = 0xffffffffu;

// Adds one rule; returns how many filter rules it took (0 when the call does not exist here).
int add_rule(scmp_filter_ctx ctx, uint32_t action, const Rule& rule, pid_t self) {
    int nr = resolve(rule.name);
    if (nr == __NR_SCMP_ERROR || nr < 0) return 0;
    auto add = [&](unsigned count, const scmp_arg_cmp* cmp) { return seccomp_rule_add_array(ctx, action, nr, count, cmp) == 0 ? 1 : 0; };
    const auto me = static_cast<scmp_datum_t>(self);
    switch (rule.when) {
        case When::always: return add(0, nullptr);
        case When::clone_without_thread: {
            scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
            return add(1, &c);
        }
        case When::target_not_self: {
            scmp_arg_cmp c = SCMP_A0(SCMP_CMP_NE, me);
            return add(1, &c);
        }
        case When::targets_not_self: {
            scmp_arg_cmp a = SCMP_A0(SCMP_CMP_NE, me), b = SCMP_A1(SCMP_CMP_NE, me);
            return add(1, &a) + add(1, &b);
        }
        case When::weakening_prctl: {
            int n = 0;
            for (uint64_t op : {PR_SET_SECCOMP, PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_PTRACER, PR_SET_MM,
                                PR_SET_CHILD_SUBREAPER, PR_SET_SECUREBITS, PR_CAP_AMBIENT, 59 /* PR_SET_SYSCALL_USER_DISPATCH */}) {
                scmp_arg_cmp c = SCMP_A0(SCMP_CMP_MASKED_EQ, kLow32, op & kLow32);
                n += add(1, &c);
            }
            return n;
        }
        case When::sets_limit: {
            scmp_arg_cmp c = SCMP_A2(SCMP_CMP_NE, 0);
            return add(1, &c);
        }
        case When::signal_owner_fcntl: {
            int n = 0;
            for (uint64_t cmd : {F_SETOWN, F_SETOWN_EX, F_SETSIG}) {
                scmp_arg_cmp c = SCMP_A1(SCMP_CMP_MASKED_EQ, kLow32, cmd);
                n += add(1, &c);
            }
            return n;
        }
    }
    return 0;
}

}  // namespace

bool seccomp_notification_available() { return seccomp_api_get() >= 6; }

Result<LoadedFilter> load_seccomp_filter(const FilterOptions& options) {
    if (options.notify && !seccomp_notification_available())
        return make_error("seccomp user notification with TSYNC is not supported here (libseccomp API level " +
                          std::to_string(seccomp_api_get()) + ", needs 6: kernel 5.7 or later)");
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) return make_error("seccomp_init failed");
    const uint32_t deny = options.notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);
    seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1);
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    // A binary tree over the system call numbers: every call of CUDA's timing loop pays the filter.
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    LoadedFilter loaded;
    for (const Rule& rule : rules()) {
        if (options.profiler_attached && !kept_with_profiler(rule.group)) continue;
        if (rule.group == kPaths && !options.notify) continue;  // without a supervisor Landlock alone decides
        loaded.rules += add_rule(ctx, deny, rule, options.self_pid);
    }
    for (const auto& c : newer_calls())
        if (!options.profiler_attached || kept_with_profiler(c.group))
            loaded.rules += seccomp_rule_add(ctx, deny, c.nr, 0) == 0 ? 1 : 0;
    // clone3 passes its flags in memory, out of the filter's sight: ENOSYS makes the C library
    // fall back to clone, whose flags the rule above checks.
    if (int nr = seccomp_syscall_resolve_name("clone3"); nr != __NR_SCMP_ERROR)
        loaded.rules += seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0) == 0 ? 1 : 0;
    int rc = seccomp_load(ctx);
    if (rc == 0 && options.notify) loaded.listener = seccomp_notify_fd(ctx);
    seccomp_release(ctx);
    if (rc != 0) return make_error(std::string("seccomp_load: ") + std::strerror(-rc));
    if (options.notify && loaded.listener < 0) return make_error("seccomp: the kernel returned no notification descriptor");
    return loaded;
}

SystemCallInfo describe_system_call(int nr) {
    SystemCallInfo info;
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    info.name = name ? name : "";
    std::free(name);
    for (const auto& c : newer_calls())
        if (c.nr == nr) info.name = c.name;
    if (info.name.empty()) info.name = "syscall " + std::to_string(nr);
    for (const auto& r : rules())
        if (info.name == r.name) {
            info.reason = kGroupReason[r.group];
            info.names_a_path = r.group == kPaths;
        }
    for (const auto& c : newer_calls())
        if (c.nr == nr) info.reason = kGroupReason[c.group];
    return info;
}

}  // namespace kp::sandbox
