// The sandbox around a worker, in two steps. run_confined() (at start, single-threaded) sets up
// the processes: this process becomes the supervisor, and the work runs in a child inside new
// namespaces (or, where they cannot be made or CUDA does not start inside them, in a child
// without). Confinement::enter() (in the child, after CUDA and the trusted reference are up, before
// candidate code is loaded) applies the resource limits, Landlock and the seccomp filter, and hands
// the filter's notifications to the supervisor. Every layer that is missing says why.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sandbox/filesystem_policy.h"
#include "sandbox/sandbox_report.h"
#include "sandbox/sandbox_settings.h"

namespace kp::sandbox {

struct ConfinementOptions {
    SandboxSettings settings;
    // A profiler attached from outside (ncu, the CUPTI timeline injection) shares the process: no
    // supervisor, no namespaces, no Landlock, and a filter that keeps only the process rules.
    bool profiler_attached = false;
    int channel_fd = -1;  // where the supervisor reports a violation ...
    std::string nonce;    // ... stamped like every worker message
};

class Confinement {
public:
    // What the layers will be, as far as is known before entering (for --require-sandbox).
    SandboxReport preflight() const;
    // Applies the rest of the sandbox (once); `library_files` are the libraries still to be loaded.
    const SandboxReport& enter(const std::vector<std::string>& library_files);
    const SandboxReport& report() const { return report_; }
    bool entered() const { return entered_; }
    bool inside_namespaces() const;
    // CUDA did not start inside the namespaces: end this child so the supervisor starts one without
    // them. Returns only when there are no namespaces to leave.
    void retry_without_namespaces(const std::string& why);

private:
    friend int run_confined(const ConfinementOptions&, const std::function<int(Confinement&)>&);
    Confinement(ConfinementOptions options, int control_fd, LayerStatus namespaces);

    ConfinementOptions options_;
    int control_fd_ = -1;  // to the supervisor; -1 without one
    bool entered_ = false;
    SandboxReport report_;
    FilesystemPolicy policy_;
};

// Runs `body` confined and returns its result when there is no supervisor; with one, this process
// supervises and ends as the child ended (it does not return).
int run_confined(const ConfinementOptions& options, const std::function<int(Confinement&)>& body);

}  // namespace kp::sandbox
