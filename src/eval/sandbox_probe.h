// What sandbox candidate code gets on this machine: a worker in sandbox_check mode applies every
// layer as it would before an evaluation (no GPU needed) and reports each one. Used by doctor.
#pragma once

#include "common/result.h"
#include "eval/worker_client.h"
#include "sandbox/sandbox_report.h"

namespace kp {

// Errors when the worker cannot be started or answers without a report.
Result<sandbox::SandboxReport> probe_worker_sandbox(WorkerOptions options = {});

}  // namespace kp
