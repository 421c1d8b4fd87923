// Children die with kernelpro. Every tool run_process starts (nvcc, ncu, nm ...) and every worker
// runs in its own process group (so a timeout can kill the whole tree: nvcc's cudafe++ and cicc
// too), which also means a Ctrl-C at the terminal does not reach them. While one runs its group
// is registered here; install_child_cleanup() makes SIGINT, SIGTERM and SIGHUP kill every
// registered group before kernelpro ends the way the signal says. A child also asks the kernel
// for SIGKILL when kernelpro dies (prepare_child_after_fork), which covers SIGKILL of kernelpro.
#pragma once

#include <sys/types.h>

namespace kp {

// Installs the handlers (once; later calls do nothing). main() calls it first thing.
void install_child_cleanup();

// Kills every registered group now (async-signal-safe: a command's own signal handler calls it).
void kill_child_groups();

// Registers a child's process group (its pid, after setpgid) for as long as this object lives.
class ChildGroupRegistration {
public:
    explicit ChildGroupRegistration(pid_t group);
    ~ChildGroupRegistration();
    ChildGroupRegistration(const ChildGroupRegistration&) = delete;
    ChildGroupRegistration& operator=(const ChildGroupRegistration&) = delete;

private:
    int slot_ = -1;
};

// In the child between fork and exec: its own process group, SIGKILL when the parent dies, and
// an immediate exit when the parent is already gone. `parent` is getpid() taken before fork.
void prepare_child_after_fork(pid_t parent);

}  // namespace kp
