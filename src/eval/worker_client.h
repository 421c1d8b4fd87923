// The orchestrator's half of the worker protocol: starts kernelpro-worker, sends the request,
// watches the channel with a watchdog, and turns whatever happened (a result, a reported failure,
// a signal, silence) into one classified outcome. Candidate code never runs in this process.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "eval/failure_class.h"
#include "eval/protocol.h"

namespace kp {

struct WorkerOutcome {
    FailureClass status = FailureClass::Crash;
    std::string message;
    std::string phase;
    nlohmann::json hello;   // device description sent by the worker
    nlohmann::json result;  // the result document (status Ok), else null
    std::string log;        // what the worker (and candidate code) printed, bounded
    nlohmann::json sandbox; // the layers around candidate code, as the worker reported them
    std::vector<std::string> sandbox_notes;  // what threads from before the sandbox were let do or denied
    double wall_seconds = 0;
    // Seconds since start at which each progress phase was first reported.
    std::map<std::string, double> phase_started;
};

struct WorkerOptions {
    std::filesystem::path worker_executable;  // default: find_worker_executable()
    // When set, the worker is started as this command instead (python_worker_command(): the worker
    // library inside a Python interpreter, for PyTorch references); --channel-fd N is appended.
    std::vector<std::string> launcher;
    // Silence on the channel longer than this kills the worker (a hang in host code). Reset by
    // every message; the worker reports GPU hangs itself after the per-call timeout.
    std::chrono::milliseconds watchdog{std::chrono::seconds(60)};
    std::chrono::milliseconds total_limit{std::chrono::minutes(10)};
    size_t max_log_bytes = 64 * 1024;
    std::function<void(const nlohmann::json&)> on_progress;  // progress messages, as they arrive
    // Set in (or replacing) the worker's environment: CUDA_VISIBLE_DEVICES pins it to its GPU.
    std::map<std::string, std::string> environment;
};

// The resource locator's kernelpro-worker: $KERNELPRO_WORKER, else <exe>/../bin, else the build tree.
Result<std::filesystem::path> find_worker_executable();

// Runs one request in a fresh worker, with a scratch folder of its own (removed afterwards) and a
// fresh nonce. A message on the channel without the nonce, or a violation the sandbox's supervisor
// reports, makes the outcome rejected_by_sandbox whatever else arrived. Errors only when the worker
// cannot be started at all, or refused to run candidate code (--require-sandbox and a missing layer).
Result<WorkerOutcome> run_worker(const WorkerRequest& request, const WorkerOptions& options);

}  // namespace kp
