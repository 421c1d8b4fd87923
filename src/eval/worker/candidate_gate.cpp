#include "eval/worker/candidate_gate.h"

#include "eval/worker/launch_gate_client.h"

namespace kp::worker {

namespace {
std::string refusal(const sandbox::SandboxReport& report) {
    return "the sandbox is required (--require-sandbox) but incomplete: " + report.missing();
}
}  // namespace

void CandidateGate::check_preflight() const {
    if (!request_.sandbox.required) return;
    auto expected = confinement_.preflight();
    if (!expected.complete()) throw SandboxRefusal(refusal(expected));
}

void CandidateGate::enter() {
    if (confinement_.entered()) return;
    // Trusted, and needed by the candidate's own dependencies: loaded while files may still be read.
    if (!request_.launch_gate_library.empty()) load_launch_gate(request_.launch_gate_library);
    std::vector<std::string> libraries;
    for (const auto* path : {&request_.candidate_library, &request_.baseline_library, &request_.reference_library, &request_.counters_library})
        if (!path->empty()) libraries.push_back(*path);
    const auto& report = confinement_.enter(libraries);
    channel_.send({{"type", "sandbox"}, {"sandbox", report.to_json()}});
    if (request_.sandbox.required && !report.complete()) throw SandboxRefusal(refusal(report));
}

}  // namespace kp::worker
