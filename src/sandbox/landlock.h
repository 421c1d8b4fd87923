// Landlock, the unprivileged filesystem sandbox of the Linux kernel, through its three system calls
// (no library): the calling thread, and every thread it starts afterwards, sees the filesystem
// only as the policy allows; on ABI 4 and later it cannot bind or connect TCP sockets either, and on
// ABI 6 and later it cannot signal, or reach the abstract sockets of, processes outside the sandbox.
// Landlock also forbids ptrace and /proc/PID/mem access to processes outside its domain.
#pragma once

#include <string>

#include "common/result.h"
#include "sandbox/filesystem_policy.h"

namespace kp::sandbox {

struct LandlockAbi {
    int version = 0;     // 0: none
    std::string reason;  // why none ("not built into this kernel", "disabled at boot")
};

// The ABI this kernel offers.
LandlockAbi landlock_abi();

struct LandlockScope {
    bool network = true;  // deny TCP bind/connect (ABI 4+)
    bool signals = true;  // deny signals and abstract unix sockets to processes outside (ABI 6+)
};

// Restricts the calling thread (and its future threads) to `policy`. Sets no_new_privs, which
// Landlock requires. Returns one line saying what is enforced.
Result<std::string> restrict_with_landlock(const FilesystemPolicy& policy, const LandlockScope& scope);

}  // namespace kp::sandbox
