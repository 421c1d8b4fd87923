// Loading a trusted library (the PyTorch bridge: a reference or an extra baseline built by
// kernelpro): dlopen, then kp_bridge_configure with the task, which may take a while (importing
// PyTorch, torch.compile). A heartbeat keeps the orchestrator's watchdog from taking the silence
// for a hang.
#pragma once

#include <string>

#include "eval/worker/channel.h"
#include "eval/worker/kernel_library.h"

namespace kp::worker {

KernelLibrary load_trusted_library(const std::string& path, const std::string& role, const std::string& task_json,
                                   const Channel& channel);

}  // namespace kp::worker
