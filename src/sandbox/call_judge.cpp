#include "sandbox/call_judge.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdio>
#include <vector>

namespace kp::sandbox {

namespace {

enum class Access { none, read, write };

struct PathArgument {
    int dirfd_arg;  // -1: relative to the working directory
    int path_arg;
    Access access;  // none: decided by the open flags
};

// Which arguments of each path call name a path, and whether the call writes there.
std::vector<PathArgument> path_arguments(const std::string& name) {
    if (name == "open") return {{-1, 0, Access::none}};
    if (name == "openat" || name == "openat2") return {{0, 1, Access::none}};
    if (name == "creat" || name == "truncate" || name == "mkdir" || name == "rmdir" || name == "unlink") return {{-1, 0, Access::write}};
    if (name == "mkdirat" || name == "unlinkat") return {{0, 1, Access::write}};
    if (name == "rename") return {{-1, 0, Access::write}, {-1, 1, Access::write}};
    if (name == "renameat" || name == "renameat2") return {{0, 1, Access::write}, {2, 3, Access::write}};
    if (name == "link") return {{-1, 0, Access::read}, {-1, 1, Access::write}};
    if (name == "linkat") return {{0, 1, Access::read}, {2, 3, Access::write}};
    if (name == "symlink") return {{-1, 1, Access::write}};
    if (name == "symlinkat") return {{1, 2, Access::write}};
    return {};
}

Access open_access(uint64_t flags) {
    if (flags & O_PATH) return Access::none;  // a handle that cannot read or write
    bool writes = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
    return writes ? Access::write : Access::read;
}

std::vector<std::string> split(const std::string& path) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i <= path.size()) {
        size_t next = path.find('/', i);
        if (next == std::string::npos) next = path.size();
        if (next > i) parts.push_back(path.substr(i, next - i));
        i = next + 1;
    }
    return parts;
}

bool numeric(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

std::string join_from(const std::vector<std::string>& parts, size_t from) {
    std::string out;
    for (size_t i = from; i < parts.size(); ++i) out += "/" + parts[i];
    return out;
}

struct Resolved {
    std::string path;
    bool other_process = false;
};

// An absolute path as the sandboxed process sees it: /proc/self and the magic links of its own
// /proc entries (cwd, root, exe, fd/N) are followed; numbered entries must be its own.
Resolved resolve_absolute(const std::string& path, const SystemCall& call, const SandboxedProcess& process,
                          const ProcessView& view, int depth) {
    std::vector<std::string> parts = split(path);
    if (parts.empty() || parts[0] != "proc") return {view.canonical(path)};
    if (parts.size() < 2 || depth > 8) return {normalize_lexically(path)};
    size_t at = 1;
    auto own = [&](const std::string& id) { return id.size() < 10 && process.own_ids.count(std::stol(id)) > 0; };
    if (numeric(parts[at]) && !own(parts[at])) return {normalize_lexically(path), true};
    if (!numeric(parts[at]) && parts[at] != "self" && parts[at] != "thread-self") return {normalize_lexically(path)};
    ++at;
    if (at + 1 < parts.size() && parts[at] == "task") {
        if (!numeric(parts[at + 1]) || !own(parts[at + 1])) return {normalize_lexically(path), true};
        at += 2;
    }
    if (at >= parts.size()) return {normalize_lexically(path)};
    std::string link;
    size_t rest = at + 1;
    if (parts[at] == "cwd" || parts[at] == "root" || parts[at] == "exe") link = parts[at];
    else if (parts[at] == "fd" && at + 1 < parts.size()) {
        link = "fd/" + parts[at + 1];
        rest = at + 2;
    }
    if (link.empty()) return {normalize_lexically(path)};
    auto target = view.proc_link(call.thread, link);
    if (!target || target->empty() || (*target)[0] != '/') return {normalize_lexically(path)};  // a pipe, a socket ...
    return resolve_absolute(*target + join_from(parts, rest), call, process, view, depth + 1);
}

std::optional<Resolved> resolve(const SystemCall& call, const PathArgument& arg, const SandboxedProcess& process,
                                const ProcessView& view) {
    auto raw = view.read_string(call.thread, call.args[arg.path_arg]);
    if (!raw || raw->empty()) return std::nullopt;  // the kernel answers EFAULT or ENOENT itself
    std::string path = *raw;
    if (path[0] != '/') {
        int dirfd = arg.dirfd_arg < 0 ? AT_FDCWD : static_cast<int>(call.args[arg.dirfd_arg]);
        auto base = view.proc_link(call.thread, dirfd == AT_FDCWD ? "cwd" : "fd/" + std::to_string(dirfd));
        if (!base || base->empty() || (*base)[0] != '/') return std::nullopt;
        path = *base + "/" + path;
    }
    return resolve_absolute(path, call, process, view, 0);
}

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

std::string socket_domain(uint64_t domain) {
    switch (domain) {
        case AF_UNIX: return "AF_UNIX";
        case AF_INET: return "AF_INET";
        case AF_INET6: return "AF_INET6";
        case AF_NETLINK: return "AF_NETLINK";
        default: return "domain " + std::to_string(domain);
    }
}

// The arguments worth showing in a violation message.
std::string describe_arguments(const std::string& name, const SystemCall& call, const ProcessView& view) {
    auto str = [&](int i) { return in_quotes(view.read_string(call.thread, call.args[i]).value_or("?")); };
    auto num = [&](int i) { return std::to_string(static_cast<long long>(static_cast<int>(call.args[i]))); };
    if (name == "execve") return str(0);
    if (name == "execveat") return str(1);
    if (name == "kill") return "pid " + num(0) + ", signal " + num(1);
    if (name == "tkill") return "thread " + num(0) + ", signal " + num(1);
    if (name == "tgkill") return "pid " + num(0) + ", thread " + num(1) + ", signal " + num(2);
    if (name == "socket" || name == "socketpair") return socket_domain(call.args[0]);
    if (name == "ptrace") return "request " + num(0) + ", pid " + num(1);
    if (name == "process_vm_readv" || name == "process_vm_writev") return "pid " + num(0);
    if (name == "prctl") return "option " + num(0);
    if (name == "clone") {
        char flags[32];
        std::snprintf(flags, sizeof flags, "flags 0x%llx", static_cast<unsigned long long>(call.args[0]));
        return flags;
    }
    return "";
}

std::string where(const SystemCall& call, const ProcessView& view) {
    std::string object = view.object_at(call.thread, call.instruction_pointer);
    return " (thread " + in_quotes(view.thread_name(call.thread)) + (object.empty() ? "" : ", code in " + object) + ")";
}

Ruling violation(const std::string& call_text, const std::string& why, int error, const SystemCall& call, const ProcessView& view) {
    return {false, error, true, false, "sandbox: " + call_text + " denied: " + why + where(call, view)};
}

// The same call from a thread that predates the sandbox: answered the same way, only noted.
Ruling noted(Ruling ruling, const char* outcome, const char* who = "a thread from before the sandbox") {
    ruling.violation = false;
    ruling.note = true;
    auto at = ruling.message.find(" denied: ");
    if (at != std::string::npos) ruling.message.replace(at, 9, std::string(" ") + outcome + " (" + who + "): ");
    return ruling;
}

// Device nodes the NVIDIA driver manages: /dev/nvidia* and the /dev/char/MAJOR:MINOR links.
bool drivers_device_node(const std::string& path) {
    return path.rfind("/dev/nvidia", 0) == 0 || path.rfind("/dev/char/", 0) == 0;
}

}  // namespace

Ruling judge_system_call(const SystemCall& call, const FilesystemPolicy& policy, const SandboxedProcess& process,
                         const ProcessView& view) {
    SystemCallInfo info = describe_system_call(call.nr);
    const bool older_thread = process.threads_before.count(call.thread) > 0;
    if (!info.names_a_path) {
        Ruling denied = violation(info.name + "(" + describe_arguments(info.name, call, view) + ")",
                                  info.reason.empty() ? "not allowed in the sandbox" : info.reason, EPERM, call, view);
        return older_thread ? noted(denied, "denied") : denied;
    }
    Ruling let_through{true, 0, false, false, ""};  // carries a note when an older thread read outside
    for (PathArgument arg : path_arguments(info.name)) {
        if (arg.access == Access::none) {
            uint64_t flags = call.args[arg.path_arg + 1];
            if (info.name == "openat2") flags = view.read_word(call.thread, call.args[2]).value_or(O_RDONLY);  // open_how.flags
            arg.access = open_access(flags);
            if (arg.access == Access::none) continue;
        }
        auto resolved = resolve(call, arg, process, view);
        if (!resolved) continue;
        const bool writes = arg.access == Access::write;
        std::string call_text = info.name + "(" + in_quotes(resolved->path) + ", " + (writes ? "write" : "read") + ")";
        if (resolved->other_process)
            return violation(call_text, "the /proc entry of another process", EACCES, call, view);
        if (writes && !policy.may_write(resolved->path)) {
            Ruling denied = violation(call_text, "only the scratch folder is writable", EACCES, call, view);
            // The driver and CUPTI tidy their own device nodes (CUPTI's range profiler unlinks
            // /dev/char/195:N on the H200, from the main thread): still refused, and they carry
            // on without it, but it is not the candidate's doing, so it is only noted.
            return drivers_device_node(resolved->path) ? noted(denied, "denied", "the driver's device nodes") : denied;
        }
        // Threads CUDA or the reference started before the sandbox are trusted code outside
        // Landlock: their reads pass; everything else reads only what the policy lists.
        const bool nothing_there = resolved->path.rfind("/proc/", 0) != 0 && !view.exists(resolved->path);
        if (!writes && !nothing_there && !policy.may_read(resolved->path)) {
            Ruling outside = violation(call_text, "outside the folders sandboxed code may read", EACCES, call, view);
            if (!older_thread) return outside;
            let_through = noted(outside, "let through");
        }
    }
    let_through.allow = true;
    let_through.error = 0;
    return let_through;
}

}  // namespace kp::sandbox
