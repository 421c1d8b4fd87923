#include "sandbox/landlock.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace kp::sandbox {

namespace {

// The kernel's Landlock ABI (include/uapi/linux/landlock.h), spelled out because the distribution's
// headers may predate the newer rights. System call numbers are the same on every architecture.
constexpr long kCreateRuleset = 444, kAddRule = 445, kRestrictSelf = 446;
constexpr uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;

enum : uint64_t {
    kExecute = 1ull << 0, kWriteFile = 1ull << 1, kReadFile = 1ull << 2, kReadDir = 1ull << 3,
    kRemoveDir = 1ull << 4, kRemoveFile = 1ull << 5, kMakeChar = 1ull << 6, kMakeDir = 1ull << 7,
    kMakeReg = 1ull << 8, kMakeSock = 1ull << 9, kMakeFifo = 1ull << 10, kMakeBlock = 1ull << 11,
    kMakeSym = 1ull << 12, kRefer = 1ull << 13, kTruncate = 1ull << 14, kIoctlDev = 1ull << 15,
};
constexpr uint64_t kNetBindTcp = 1ull << 0, kNetConnectTcp = 1ull << 1;
constexpr uint64_t kScopeAbstractUnixSocket = 1ull << 0, kScopeSignal = 1ull << 1;

// Rights a rule on a regular or device file may carry (the kernel refuses directory rights there).
constexpr uint64_t kFileRights = kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;

struct RulesetAttr {
    uint64_t handled_access_fs = 0;
    uint64_t handled_access_net = 0;
    uint64_t scoped = 0;
};

struct __attribute__((packed)) PathBeneathAttr {
    uint64_t allowed_access;
    int32_t parent_fd;
};

uint64_t handled_filesystem_rights(int abi) {
    uint64_t rights = (1ull << 13) - 1;  // ABI 1: execute .. make_sym
    if (abi >= 2) rights |= kRefer;
    if (abi >= 3) rights |= kTruncate;
    if (abi >= 5) rights |= kIoctlDev;
    return rights;
}

constexpr uint64_t kReadOnly = kReadFile | kReadDir;
constexpr uint64_t kReadWrite = kReadFile | kReadDir | kWriteFile | kRemoveDir | kRemoveFile | kMakeDir | kMakeReg |
                                kMakeSym | kMakeFifo | kMakeSock | kRefer | kTruncate;
constexpr uint64_t kDevice = kReadFile | kReadDir | kWriteFile | kIoctlDev;

// Adds one path-beneath rule; a path that does not exist is skipped (nothing to allow there).
Status allow(int ruleset, const std::string& path, uint64_t rights, uint64_t handled) {
    int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? Status{} : make_error(path + ": " + std::strerror(errno));
    struct stat st {};
    ::fstat(fd, &st);
    uint64_t allowed = rights & handled;
    if (!S_ISDIR(st.st_mode)) allowed &= kFileRights;
    PathBeneathAttr rule{allowed, fd};
    long rc = allowed ? ::syscall(kAddRule, ruleset, kRulePathBeneath, &rule, 0) : 0;
    int error = errno;
    ::close(fd);
    if (rc != 0) return make_error("landlock rule for " + path + ": " + std::strerror(error));
    return {};
}

}  // namespace

LandlockAbi landlock_abi() {
    long v = ::syscall(kCreateRuleset, nullptr, 0, kCreateRulesetVersion);
    if (v > 0) return {static_cast<int>(v), ""};
    if (errno == ENOSYS) return {0, "this kernel has no Landlock (CONFIG_SECURITY_LANDLOCK)"};
    if (errno == EOPNOTSUPP) return {0, "Landlock is disabled at boot (add landlock to the lsm= kernel parameter)"};
    return {0, std::string("landlock_create_ruleset: ") + std::strerror(errno)};
}

Result<std::string> restrict_with_landlock(const FilesystemPolicy& policy, const LandlockScope& scope) {
    LandlockAbi abi = landlock_abi();
    if (abi.version == 0) return make_error(abi.reason);
    RulesetAttr attr;
    attr.handled_access_fs = handled_filesystem_rights(abi.version);
    size_t size = sizeof(uint64_t);
    if (abi.version >= 4 && scope.network) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
    if (abi.version >= 4) size = 2 * sizeof(uint64_t);
    if (abi.version >= 6 && scope.signals) attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
    if (abi.version >= 6) size = sizeof(RulesetAttr);
    int ruleset = static_cast<int>(::syscall(kCreateRuleset, &attr, size, 0));
    if (ruleset < 0) return make_error(std::string("landlock_create_ruleset: ") + std::strerror(errno));
    auto add_all = [&](const std::vector<std::string>& paths, uint64_t rights) -> Status {
        for (const auto& p : paths)
            if (auto s = allow(ruleset, p, rights, attr.handled_access_fs); !s) return s;
        return {};
    };
    Status added = add_all(policy.read_only, kReadOnly);
    if (added) added = add_all(policy.read_write, kReadWrite);
    if (added) added = add_all(policy.devices, kDevice);
    if (!added) {
        ::close(ruleset);
        return added.error();
    }
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::syscall(kRestrictSelf, ruleset, 0) != 0) {
        int error = errno;
        ::close(ruleset);
        return make_error(std::string("landlock_restrict_self: ") + std::strerror(error));
    }
    ::close(ruleset);
    std::string detail = "ABI " + std::to_string(abi.version) + ": system folders, /proc and /sys read-only, " +
                         (policy.read_write.empty() ? std::string("nothing writable") : "writes only in the scratch folder") +
                         ", GPU devices";
    if (attr.handled_access_net) detail += ", no TCP";
    if (attr.scoped) detail += ", no signals or abstract sockets outside";
    return detail;
}

}  // namespace kp::sandbox
