// Namespaces for the sandboxed worker: its own pid namespace (it sees only itself and cannot
// signal the orchestrator), network namespace (no interface but a loopback that is down), ipc
// namespace and mount namespace with its own /proc. A root process creates them directly; any other
// first creates a user namespace that maps its own user and group ids, which needs unprivileged
// user namespaces to be allowed on the host.
#pragma once

#include <string>

#include "common/result.h"

namespace kp::sandbox {

// True when the process may create namespaces without a user namespace (CAP_SYS_ADMIN).
bool can_create_namespaces_directly();

// In the process that will hold the namespaces (single-threaded): unshare them, and write the id
// maps when a user namespace is needed. Its next child is the first process of the pid namespace.
// Returns a short description ("pid, network, ipc, mount").
Result<std::string> unshare_namespaces(bool with_user_namespace);

// In that first child: make every mount private and mount a /proc of the new pid namespace.
Status mount_own_proc();

}  // namespace kp::sandbox
