// kernelpro eval TASK CANDIDATE.cu [--baseline OTHER.cu] [--json] [--require-sandbox]
//               [--energy [--energy-windows N]]
// Exit codes: 0 correct, 1 the candidate failed (any class), 2 usage or task error, 3 environment
// (with --require-sandbox: a layer of the sandbox is missing; candidate code never ran).
#include <unistd.h>

#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "build/candidate_builder.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "common/files.h"
#include "eval/evaluation_report_text.h"
#include "common/utf8.h"
#include "eval/evaluator.h"
#include "optimize/claim_check.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace {
struct EvalArgs {
    std::string task, candidate, baseline;
    std::vector<std::string> params;
    bool json = false, no_timing = false, quiet = false, require_sandbox = false, no_compile = false, energy = false;
    bool idle_start = false;
    int energy_windows = 5;
    int trials = 5;
    // The evaluator's own stopping rule unless asked otherwise (sample_statistics.h).
    double max_time = StoppingRule{}.max_seconds, min_time = StoppingRule{}.min_seconds,
           noise = 100 * StoppingRule{}.max_noise, median_interval = 100 * StoppingRule{}.max_median_interval, call_timeout = 10.0;
    size_t min_samples = StoppingRule{}.min_samples;
    uint64_t seed = 0;
};
}  // namespace

Handler register_eval(CLI::App& root) {
    auto* cmd = root.add_subcommand("eval", "Compile, verify and time a candidate against the task's reference");
    auto a = std::make_shared<EvalArgs>();
    cmd->add_option("task", a->task, "Task folder (holding task.toml)")->required();
    cmd->add_option("candidate", a->candidate, "Candidate .cu file")->required()->check(CLI::ExistingFile);
    cmd->add_option("--baseline", a->baseline, "Time against this kernel instead of the reference")->check(CLI::ExistingFile);
    cmd->add_option("-D,--param", a->params, "Tunable value NAME=VALUE (repeatable)")
        ->allow_extra_args(false);  // one value per -D: it must not swallow the positionals after it
    cmd->add_flag("--json", a->json, "Print the versioned JSON report (schema kernelpro.eval/1)");
    cmd->add_option("--trials", a->trials, "Correctness trials with fresh inputs")->capture_default_str()->check(CLI::Range(1, 1000));
    cmd->add_flag("--no-timing", a->no_timing, "Check correctness only");
    cmd->add_flag("--no-compile-baseline", a->no_compile, "PyTorch tasks: time the eager module only, not torch.compile of it");
    cmd->add_flag("--energy", a->energy, "Also measure joules per call (NVML energy counter, windows of back-to-back calls after timing)");
    cmd->add_option("--energy-windows", a->energy_windows, "Energy windows per side, for the spread")->capture_default_str()
        ->check(CLI::Range(1, 100));
    cmd->add_option("--max-time", a->max_time, "Wall-time cap of the timing phase, seconds")->capture_default_str()->check(finite_at_least(0));
    cmd->add_option("--min-time", a->min_time, "Measured time needed before stopping, seconds")->capture_default_str()->check(finite_at_least(0));
    cmd->add_option("--min-samples", a->min_samples, "Samples needed before stopping")->capture_default_str();
    cmd->add_option("--noise", a->noise, "Stop when the relative std dev is under this, percent")->capture_default_str()->check(finite_at_least(0));
    cmd->add_option("--median-interval", a->median_interval,
                    "Stop when the 95% interval of the median is within this of it, percent (0: off)")->capture_default_str()
        ->check(finite_at_least(0));
    cmd->add_flag("--idle-start", a->idle_start,
                  "Start each timed interval on an idle GPU, so it includes the host's launch latency (default: queued behind a "
                  "held stream, the GPU's time alone, as ncu reports)");
    cmd->add_option("--call-timeout", a->call_timeout, "Seconds one kernel call may take")->capture_default_str()->check(finite_at_least(0.001));
    cmd->add_option("--seed", a->seed, "Input seed (default: random, unpredictable to the candidate)");
    cmd->add_flag("-q,--quiet", a->quiet, "No progress lines on stderr");
    cmd->add_flag("--require-sandbox", a->require_sandbox,
                  "Refuse (exit 3) unless every sandbox layer is active (see `kernelpro doctor`)");
    return [a]() -> int {
        auto task = load_task(a->task);
        if (!task.ok()) {
            std::cerr << task.error().message << "\n";
            return kExitUsage;
        }
        auto values = candidate_parameter_values(a->candidate, a->params);
        if (!values.ok()) {
            std::cerr << "error: " << values.error().message << "\n";
            return kExitUsage;
        }
        if (auto gpu = require_usable_gpu(); !gpu.ok()) {
            std::cerr << "error: " << gpu.error().message << "\n";
            return kExitEnvironment;
        }
        BuilderOptions build_options;
        build_options.arch = detect_gpu_arch();
        CandidateBuilder builder(build_options);
        Evaluator evaluator(builder);
        EvaluationOptions options;
        if (!a->baseline.empty()) options.baseline_source = a->baseline;
        options.candidate_parameters = *values;
        options.trials = a->trials;
        options.timing.enabled = !a->no_timing;
        options.timing.stopping.max_seconds = a->max_time;
        options.timing.stopping.min_seconds = a->min_time;
        options.timing.stopping.min_samples = a->min_samples;
        options.timing.stopping.max_noise = a->noise / 100.0;
        options.timing.stopping.max_median_interval = a->median_interval / 100.0;
        options.timing.queued_start = !a->idle_start;
        options.call_timeout_seconds = a->call_timeout;
        options.energy.enabled = a->energy && !a->no_timing;
        options.energy.windows = a->energy_windows;
        options.seed = a->seed;
        options.sandbox.required = a->require_sandbox;
        options.compile_baseline = task->reference.pytorch.has_value() && !a->no_compile;
        auto start = std::chrono::steady_clock::now();
        if (!a->quiet)
            options.on_progress = [start](const std::string& line) {
                // Progress only for runs that last: quick evaluations stay silent.
                double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                if (elapsed > 1.0) std::cerr << fmt::format("[{:6.1f} s] {}\n", elapsed, line);
            };
        auto report = evaluator.evaluate(*task, a->candidate, options);
        if (!report.ok()) {
            std::cerr << "error: " << report.error().message << "\n";
            return kExitEnvironment;
        }
        // What the candidate says it uses (WGMMA, TMA, tensor cores) against its SASS, as optimize checks it.
        if (report->candidate_build && report->candidate_build->ok())
            if (auto text = read_text_file(a->candidate); text.ok())
                for (const auto& claim : optimize::check_hardware_claims(*text, "", report->candidate_build->library,
                                                                         report->candidate_build->key, a->candidate)
                                             .unbacked)
                    report->warnings.push_back("claim check: " + analysis::describe_unbacked(claim));
        if (a->json) std::cout << dump_json(report->to_json(), 2) << "\n";
        else std::cout << render_evaluation_text(*report);
        return report->status == FailureClass::Ok ? kExitOk : kExitCandidateFailed;
    };
}

}  // namespace kp::cli
