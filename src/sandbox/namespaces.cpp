#include "sandbox/namespaces.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace kp::sandbox {

namespace {

Status write_file(const char* path, const std::string& text) {
    int fd = ::open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return make_error(std::string(path) + ": " + std::strerror(errno));
    ssize_t n = ::write(fd, text.data(), text.size());
    int error = errno;
    ::close(fd);
    if (n != static_cast<ssize_t>(text.size())) return make_error(std::string(path) + ": " + std::strerror(error));
    return {};
}

std::string unshare_failure(int error, bool with_user_namespace) {
    std::string why = std::string("unshare: ") + std::strerror(error);
    if (with_user_namespace && (error == EPERM || error == ENOSPC || error == EACCES))
        why += " (unprivileged user namespaces are off on this host: see kernel.unprivileged_userns_clone, "
               "user.max_user_namespaces or the AppArmor userns restriction)";
    return why;
}

}  // namespace

bool can_create_namespaces_directly() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);) {
        if (line.rfind("CapEff:", 0) != 0) continue;
        unsigned long long caps = std::stoull(line.substr(7), nullptr, 16);
        return (caps >> 21) & 1;  // CAP_SYS_ADMIN
    }
    return false;
}

Result<std::string> unshare_namespaces(bool with_user_namespace) {
    const uid_t uid = ::geteuid();
    const gid_t gid = ::getegid();
    int flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS;
    if (with_user_namespace) flags |= CLONE_NEWUSER;
    if (::unshare(flags) != 0) return make_error(unshare_failure(errno, with_user_namespace));
    if (with_user_namespace) {
        // The process keeps its own ids: files it creates (in the scratch folder) belong to the user.
        if (auto s = write_file("/proc/self/setgroups", "deny"); !s) return s.error();
        if (auto s = write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n"); !s) return s.error();
        if (auto s = write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n"); !s) return s.error();
    }
    return std::string(with_user_namespace ? "user, " : "") + "pid, network, ipc and mount namespaces (own /proc)";
}

Status mount_own_proc() {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        return make_error(std::string("making mounts private: ") + std::strerror(errno));
    if (::mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
        return make_error(std::string("mounting /proc for the new pid namespace: ") + std::strerror(errno));
    return {};
}

}  // namespace kp::sandbox
