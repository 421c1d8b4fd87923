// The worker's side of the launch gate (docs/cutlass.md): a CUTLASS candidate links
// libkp_launch_gate.so by name, so the worker loads it, from the path the build recorded, before
// the sandbox goes on and before the candidate (whose dependency then resolves to it). After every
// call of the candidate the worker asks the gate whether it refused a launch; a refusal fails the
// evaluation as rejected_by_guard with the gate's reason, whatever the candidate returned.
#pragma once

#include <string>

namespace kp::worker {

// Loads the gate (once per worker); throws WorkerFailure when it cannot.
void load_launch_gate(const std::string& path);

// The gate's first refusal ("launch gate: cudaLaunchKernelEx refused: ..."), or "" when no gate
// is loaded or it refused nothing.
std::string launch_gate_refusal();

}  // namespace kp::worker
