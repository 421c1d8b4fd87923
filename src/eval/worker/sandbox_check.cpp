#include "eval/worker/sandbox_check.h"

#include <cstdlib>

#include "eval/worker/kernel_library.h"

namespace kp::worker {

nlohmann::json run_sandbox_check(const WorkerRequest& request, CandidateGate& gate, const Channel& channel) {
    // Test hook: behave as an evaluation does when CUDA cannot start inside the namespaces.
    if (const char* retry = std::getenv("KERNELPRO_SANDBOX_TEST_RETRY"); retry && *retry == '1')
        gate.confinement().retry_without_namespaces("test hook: KERNELPRO_SANDBOX_TEST_RETRY");
    gate.enter();
    nlohmann::json result{{"type", "result"}};
    if (request.candidate_library.empty()) return result;
    channel.progress("load");
    KernelLibrary candidate = KernelLibrary::load(request.candidate_library, "candidate");
    channel.progress("call");
    std::vector<kp_tensor> none;
    result["returned"] = candidate.forward(none, none, nullptr);
    return result;
}

}  // namespace kp::worker
