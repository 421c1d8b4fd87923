// Benchmarks of the evaluation engine on the example tasks (issue 2 §10):
//  (a) latency per candidate, split into compile / verify / time (cold compile cache);
//  (b) the same candidate evaluated N times: spread of the medians;
//  (c) our median against ncu's gpu__time_duration for the same kernel;
//  --sandbox-cost instead: the sandbox's cost per evaluation (sandbox_cost.h).
// Prints a table; --json FILE also writes every number.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "build/candidate_builder.h"
#include "common/files.h"
#include "common/process.h"
#include "eval/evaluator.h"
#include "eval/sample_statistics.h"
#include "profile/ncu_csv.h"
#include "profile/tool_locator.h"
#include "sandbox_cost.h"

using namespace kp;
namespace fs = std::filesystem;

namespace {

// Mean ncu gpu__time_duration per call of the candidate, over `calls` profiled calls.
std::optional<double> ncu_seconds_per_call(const TaskSpec& task, const EvaluationReport& report, int calls, std::string& note) {
    auto ncu = profile::locate_nvidia_tool("ncu");
    auto worker = find_worker_executable();
    if (!ncu || !worker.ok()) {
        note = "ncu or worker not found";
        return std::nullopt;
    }
    WorkerRequest request;
    request.mode = "profile_run";
    request.task = to_json(task);
    request.candidate_library = report.candidate_build->library.string();
    request.seed = 42;
    request.profile_iterations = calls;
    auto dir = make_temp_directory("kp-bench-ncu").value();
    std::ofstream(dir / "request.json") << to_json(request).dump();
    std::string command = fmt::format(
        "{} --clock-control none --profile-from-start off --metrics gpu__time_duration.sum --csv --print-units base "
        "{} --channel-fd 3 3>/dev/null < {}",
        *ncu, worker->string(), (dir / "request.json").string());
    ProcessOptions options;
    options.timeout = std::chrono::minutes(5);
    auto r = run_process({"bash", "-c", command}, options);
    if (!r.ok() || !r->succeeded()) {
        note = r.ok() ? r->describe_failure() + " " + r->stderr_text.substr(0, 300) : r.error().message;
        return std::nullopt;
    }
    auto kernels = profile::parse_ncu_csv(r->stdout_text);
    if (!kernels.ok() || kernels->empty()) {
        note = "no kernels in ncu output";
        return std::nullopt;
    }
    double total_ns = 0;
    for (const auto& k : *kernels) total_ns += k.number("gpu__time_duration.sum").value_or(0);
    return total_ns * 1e-9 / calls;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_eval: evaluation latency, repeatability and agreement with ncu on the example tasks"};
    std::string tasks_dir = "tasks";  // run from the checkout, as scripts/gpu-check does
    std::string json_out;
    int repeats = 5;
    bool with_ncu = true, sandbox_cost = false;
    std::vector<std::string> only;
    StoppingRule stopping;  // the evaluator's defaults unless asked otherwise
    app.add_option("--max-standard-error", stopping.max_standard_error,
                   "Stopping rule: stop once the relative standard error of the mean is under this")->capture_default_str();
    app.add_option("--max-noise", stopping.max_noise, "Stopping rule: stop once the relative standard deviation is under this")
        ->capture_default_str();
    app.add_option("--tasks", tasks_dir, "Folder of example tasks")->capture_default_str();
    app.add_option("--repeats", repeats, "Evaluations of the same candidate for the spread");
    app.add_option("--json", json_out, "Write all numbers to this file");
    app.add_option("--only", only, "Task names to run");
    app.add_flag("!--no-ncu", with_ncu, "Skip the ncu comparison");
    app.add_flag("--sandbox-cost", sandbox_cost, "Measure the sandbox's cost per evaluation instead (on/off, alternating)");
    CLI11_PARSE(app, argc, argv);

    auto cache = make_temp_directory("kp-bench-cache").value();  // cold compile cache
    BuilderOptions build_options;
    build_options.cache_directory = cache;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    Evaluator evaluator(builder);
    nlohmann::json all = nlohmann::json::array();
    std::vector<double> compile_s, verify_s, time_s, total_s, spreads;
    std::vector<std::string> rows;
    std::vector<fs::path> task_dirs;
    for (const auto& d : fs::directory_iterator(tasks_dir))
        if (fs::exists(d.path() / "task.toml") && fs::exists(d.path() / "candidates" / "fast.cu")) task_dirs.push_back(d.path());
    std::sort(task_dirs.begin(), task_dirs.end());
    if (sandbox_cost) return bench::run_sandbox_cost(builder, task_dirs, only, repeats, json_out);
    for (const auto& dir : task_dirs) {
        auto task = load_task(dir);
        if (!task.ok()) {
            std::fprintf(stderr, "%s\n", task.error().message.c_str());
            return 2;
        }
        if (!only.empty() && std::find(only.begin(), only.end(), task->name) == only.end()) continue;
        fs::path candidate = dir / "candidates" / "fast.cu";
        EvaluationOptions options;
        options.timing.stopping = stopping;
        std::vector<double> medians;
        nlohmann::json runs = nlohmann::json::array();
        std::optional<EvaluationReport> first;
        for (int i = 0; i < repeats; ++i) {
            auto report = evaluator.evaluate(*task, candidate, options);
            if (!report.ok()) {
                std::fprintf(stderr, "%s: %s\n", task->name.c_str(), report.error().message.c_str());
                break;
            }
            runs.push_back(report->to_json());
            if (!first) first = *report;
            if (report->status == FailureClass::Ok && report->candidate_median_seconds()) medians.push_back(*report->candidate_median_seconds());
            std::fprintf(stderr, "%s run %d: %s %.1f us, %d samples (%s), timing %.2f s, throttled dropped %d kept %d\n",
                         task->name.c_str(), i + 1, failure_class_name(report->status),
                         report->candidate_median_seconds().value_or(0) * 1e6, report->timing.value("samples", 0),
                         report->timing.value("stop_reason", std::string("?")).c_str(), report->time_seconds,
                         report->timing.value("throttled_samples_discarded", 0), report->timing.value("throttled_samples", 0));
        }
        if (!first) continue;
        compile_s.push_back(first->compile_seconds);
        verify_s.push_back(first->verify_seconds);
        time_s.push_back(first->time_seconds);
        total_s.push_back(first->total_seconds);
        double spread = 0;
        auto summary = summarize(medians);
        if (medians.size() > 1) spread = (summary.max - summary.min) / summary.median;
        spreads.push_back(spread);
        std::optional<double> ncu_s;
        std::string note;
        if (with_ncu && first->status == FailureClass::Ok) ncu_s = ncu_seconds_per_call(*task, *first, 5, note);
        double ours = summary.median;
        rows.push_back(fmt::format("| {:<18} | {:<14} | {:>6.2f} | {:>6.2f} | {:>5.2f} | {:>6.2f} | {:>10.1f} | {:>6.2f}x | {:>6.2f}% | {:>10} | {:>7} |",
                                   task->name, failure_class_name(first->status), first->compile_seconds, first->verify_seconds,
                                   first->time_seconds, first->total_seconds, ours * 1e6, first->speedup().value_or(0),
                                   100 * spread, ncu_s ? fmt::format("{:.1f}", *ncu_s * 1e6) : "n/a",
                                   ncu_s && ours > 0 ? fmt::format("{:+.1f}%", 100 * (ours - *ncu_s) / *ncu_s) : note.empty() ? "n/a" : "err"));
        if (!note.empty()) std::fprintf(stderr, "%s ncu: %s\n", task->name.c_str(), note.c_str());
        all.push_back({{"task", task->name}, {"runs", runs}, {"median_of_medians_s", ours}, {"spread", spread},
                       {"ncu_seconds_per_call", ncu_s ? nlohmann::json(*ncu_s) : nlohmann::json()}});
    }
    std::printf("\n| task | status | compile s | verify s | time s | total s | median us | speedup | spread of %d medians | ncu us | ours vs ncu |\n",
                repeats);
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& r : rows) std::printf("%s\n", r.c_str());
    auto med = [](std::vector<double> v) { return summarize(std::move(v)).median; };
    std::printf("\nmedian over tasks: compile %.2f s, verify %.2f s, time %.2f s, total %.2f s per candidate; max spread %.2f%%\n",
                med(compile_s), med(verify_s), med(time_s), med(total_s),
                spreads.empty() ? 0.0 : 100 * *std::max_element(spreads.begin(), spreads.end()));
    if (!json_out.empty()) std::ofstream(json_out) << all.dump(2);
    return 0;
}
