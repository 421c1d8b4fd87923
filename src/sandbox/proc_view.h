// The supervisor's ProcessView of a sandboxed child: its memory through process_vm_readv, its
// links, names and mappings through /proc (the supervisor is its ancestor, which ptrace rules allow).
#pragma once

#include "sandbox/call_judge.h"

namespace kp::sandbox {

class ProcProcessView : public ProcessView {
public:
    std::optional<std::string> read_string(pid_t thread, uint64_t address) const override;
    std::optional<uint64_t> read_word(pid_t thread, uint64_t address) const override;
    std::optional<std::string> proc_link(pid_t thread, const std::string& link) const override;
    std::string canonical(const std::string& absolute_path) const override;
    bool exists(const std::string& canonical_path) const override;
    std::string thread_name(pid_t thread) const override;
    std::string object_at(pid_t thread, uint64_t address) const override;
};

// The ids a process and its threads have in their own pid namespace (the last NSpid field of each
// /proc/PID/task/TID/status), and the supervisor's ids of its threads other than the main one.
SandboxedProcess describe_sandboxed_process(pid_t process);

}  // namespace kp::sandbox
