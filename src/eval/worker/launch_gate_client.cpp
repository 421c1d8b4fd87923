#include "eval/worker/launch_gate_client.h"

#include "eval/worker/worker_failure.h"
#include "gpu/dynamic_library.h"

namespace kp::worker {

namespace {
const char* (*g_refusal)() = nullptr;
}  // namespace

void load_launch_gate(const std::string& path) {
    if (g_refusal) return;
    auto gate = gpu::DynamicLibrary::open({path}, gpu::DynamicLibrary::Lifetime::process);
    if (!gate) throw WorkerFailure(FailureClass::Crash, "cannot load the launch gate: " + gate.error().message, "load");
    if (!gate->bind(g_refusal, "kp_launch_gate_refusal"))
        throw WorkerFailure(FailureClass::Crash, path + " is not the launch gate (no kp_launch_gate_refusal)", "load");
}

std::string launch_gate_refusal() {
    const char* text = g_refusal ? g_refusal() : nullptr;
    return text ? text : "";
}

}  // namespace kp::worker
