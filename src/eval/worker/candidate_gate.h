// The point in the worker after which untrusted code may run: before the first library other
// than the trusted reference is loaded, the rest of the sandbox goes on (resource limits, Landlock,
// the seccomp filter) and its report goes out on the channel. With --require-sandbox a missing
// layer refuses the evaluation instead, before candidate code is in the process.
#pragma once

#include <stdexcept>
#include <string>

#include "eval/protocol.h"
#include "eval/worker/channel.h"
#include "sandbox/confinement.h"

namespace kp::worker {

// Thrown when the sandbox is required but incomplete; main answers with a "refused" message.
struct SandboxRefusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class CandidateGate {
public:
    CandidateGate(const WorkerRequest& request, sandbox::Confinement& confinement, const Channel& channel)
        : request_(request), confinement_(confinement), channel_(channel) {}

    // Refuses at once when a required layer is already known to be missing (before CUDA starts).
    void check_preflight() const;
    // Applies the sandbox (once) and reports it; throws SandboxRefusal when required and incomplete.
    void enter();
    sandbox::Confinement& confinement() { return confinement_; }

private:
    const WorkerRequest& request_;
    sandbox::Confinement& confinement_;
    const Channel& channel_;
};

}  // namespace kp::worker
