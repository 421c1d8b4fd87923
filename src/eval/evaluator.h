// One evaluation end to end: build the reference, baseline and candidate (in parallel, cached),
// static guard, then a fresh worker for correctness and timing; the result is one report with a
// failure class, the numbers, and where the time went (compile / verify / time).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "build/candidate_builder.h"
#include "eval/failure_class.h"
#include "eval/gpu_pool.h"
#include "eval/protocol.h"
#include "eval/worker_client.h"
#include "task/task_spec.h"

namespace kp {

struct EvaluationOptions {
    std::optional<std::filesystem::path> baseline_source;  // default: the task's reference
    ParameterValues candidate_parameters;                   // tunable values (-D)
    int trials = 5;
    TimingConfig timing;
    EnergyConfig energy;  // off by default: eval --energy, optimize --objective energy|edp
    double call_timeout_seconds = 10.0;
    uint64_t seed = 0;  // 0: drawn from std::random_device (the usual case)
    // Tasks with a PyTorch reference: also time torch.compile of the module (compiled in the worker
    // before any timed call) beside the eager reference.
    bool compile_baseline = false;
    std::function<void(const std::string&)> on_progress;  // one-line progress messages
    // The sandbox around candidate code: `required` refuses (an error, exit 3) when a layer is
    // missing; `read_paths` adds folders a reference reads at run time. The scratch folder is
    // made per worker.
    sandbox::SandboxSettings sandbox;
    EvaluationVariant variant;    // poison patterns and buffer layout (re-verification changes them)
    bool guard_candidate = true;  // false only where a test aims at the sandbox behind the guard
};

struct EvaluationReport {
    FailureClass status = FailureClass::Crash;
    std::string message;  // why it failed (trimmed compile errors, guard verdict, mismatch ...)
    std::string task_name;
    std::string candidate_path;
    ParameterValues parameters;
    std::optional<BuildOutcome> candidate_build;
    nlohmann::json device;           // from the worker
    nlohmann::json correctness;      // per-trial comparison numbers
    nlohmann::json timing;           // sample summaries, speedup, stop reason
    nlohmann::json sandbox;          // the layers around candidate code (sandbox::SandboxReport JSON)
    nlohmann::json energy;           // joules per call and its spread, when measured (null otherwise)
    std::vector<std::string> warnings;
    double compile_seconds = 0, verify_seconds = 0, time_seconds = 0, total_seconds = 0;
    // Seconds after the worker started at which it said hello and began each phase (reference,
    // load, correctness, warmup, timing): where one evaluation's time goes.
    std::map<std::string, double> worker_phases;
    std::string worker_log;

    std::optional<double> candidate_median_seconds() const;
    std::optional<double> speedup() const;
    // Over a named extra baseline ("compile"), when it was timed.
    std::optional<double> speedup_over(const std::string& baseline) const;
    std::optional<double> candidate_joules_per_call() const;  // when energy was measured
    nlohmann::json to_json() const;  // versioned: {"schema": "kernelpro.eval/1", ...}
};

class Evaluator {
public:
    explicit Evaluator(CandidateBuilder& builder, WorkerOptions worker_options = {});
    // Evaluators that share a pool run their workers on its slots, one worker per slot at a time
    // (timings on one GPU must not overlap), pinned to the slot's GPU; their builds run in
    // parallel meanwhile. The slot's device is recorded in the report (device.index, uuid, name).
    // Without a pool a worker runs at once, on the first GPU the process sees. `pool` outlives
    // the evaluator.
    void set_gpu_pool(GpuPool* pool) { pool_ = pool; }
    GpuPool* gpu_pool() const { return pool_; }
    // Errors only for problems that are not the candidate's fault (no nvcc, the reference fails to
    // build, the worker cannot start); everything the candidate does is in the report.
    Result<EvaluationReport> evaluate(const TaskSpec& task, const std::filesystem::path& candidate,
                                      const EvaluationOptions& options);

private:
    CandidateBuilder& builder_;
    WorkerOptions worker_options_;
    GpuPool* pool_ = nullptr;
};

// The task's precomputed reference sets (reference.data), sorted.
std::vector<std::string> reference_data_sets(const TaskSpec& task);

}  // namespace kp
