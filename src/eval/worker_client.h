// The orchestrator's half of the worker protocol: starts kernelpro-worker, sends the request,
// watches the channel with a watchdog, and turns whatever happened (a result, a reported failure,
// a signal, silence) into one classified outcome. Candidate code never runs in this process.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// One worker, started and followed until it ends. A counters run with follow-ups
// (request.follow_ups) answers each collection with a `collection` message and reads the next
// one from stdin: several collections in one process, one CUDA context and module load.
class WorkerConversation {
public:
    // Starts a fresh worker on `request` (a scratch folder and a nonce of its own, as run_worker);
    // its stdin stays open for follow-ups only when the request asks for them.
    static Result<WorkerConversation> start(const WorkerRequest& request, const WorkerOptions& options);
    WorkerConversation(WorkerConversation&&) noexcept;
    WorkerConversation& operator=(WorkerConversation&&) noexcept;
    // Kills the worker's process group when finish() was not called.
    ~WorkerConversation();

    // The next `collection` message's counters; nullopt when the worker ended (or the watchdog
    // ended it) first, or the channel carried a line the worker did not write or a sandbox
    // violation (finish() then says what happened). The watchdog counts only while this waits.
    std::optional<nlohmann::json> next_collection();
    // One follow-up line on the worker's stdin.
    Status send(const nlohmann::json& follow_up);
    // Ends stdin, waits for the worker to end and classifies how, like run_worker.
    Result<WorkerOutcome> finish();

private:
    struct Running;
    explicit WorkerConversation(std::unique_ptr<Running> running);
    std::unique_ptr<Running> running_;
};

// Runs one request in a fresh worker, with a scratch folder of its own (removed afterwards) and a
// fresh nonce. A message on the channel without the nonce, or a violation the sandbox's supervisor
// reports, makes the outcome rejected_by_sandbox whatever else arrived. Errors only when the worker
// cannot be started at all, or refused to run candidate code (--require-sandbox and a missing layer).
Result<WorkerOutcome> run_worker(const WorkerRequest& request, const WorkerOptions& options);

}  // namespace kp
