#include "eval/sandbox_probe.h"

namespace kp {

Result<sandbox::SandboxReport> probe_worker_sandbox(WorkerOptions options) {
    WorkerRequest request;
    request.mode = "sandbox_check";
    request.task = nlohmann::json::object();
    options.watchdog = std::chrono::seconds(20);
    options.total_limit = std::chrono::seconds(30);
    auto outcome = run_worker(request, options);
    if (!outcome) return outcome.error();
    if (outcome->sandbox.is_null())
        return make_error(std::string("the worker reported no sandbox (") + failure_class_name(outcome->status) + ": " +
                          outcome->message + ")");
    return sandbox::SandboxReport::from_json(outcome->sandbox);
}

}  // namespace kp
