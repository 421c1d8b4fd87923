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
#include <set>

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

// Extra ncu metrics (--ncu-metrics) per call of the candidate: a `.sum` metric summed over the
// call's kernels, any other (rates, percentages) averaged over them.
using MetricTotals = std::vector<std::pair<std::string, double>>;

std::string metric_list(const std::vector<std::string>& extra) {
    std::string list = "gpu__time_duration.sum";
    for (const auto& m : extra) list += "," + m;
    return list;
}

MetricTotals per_call_totals(const std::vector<profile::KernelMetrics>& kernels, const std::vector<std::string>& extra, size_t calls) {
    MetricTotals totals;
    if (kernels.empty() || calls == 0) return totals;
    for (const auto& m : extra) {
        double total = 0;
        for (const auto& k : kernels) total += k.number(m).value_or(0);
        const bool summed = m.size() > 4 && m.compare(m.size() - 4, 4, ".sum") == 0;
        totals.emplace_back(m, summed ? total / static_cast<double>(calls) : total / static_cast<double>(kernels.size()));
    }
    return totals;
}

std::string format_totals(const MetricTotals& totals) {
    std::string text;
    for (const auto& [name, value] : totals) text += fmt::format("{}{}={:.4g}", text.empty() ? "" : ", ", name, value);
    return text;
}

// Mean ncu gpu__time_duration per call of the candidate, over `calls` profiled calls; the names of
// the kernels it launched into `names`.
std::optional<double> ncu_seconds_per_call(const TaskSpec& task, const EvaluationReport& report, int calls, std::string& note,
                                           std::set<std::string>* names = nullptr, const std::vector<std::string>& extra = {},
                                           MetricTotals* totals = nullptr) {
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
        "{} --clock-control none --profile-from-start off --metrics {} --csv --print-units base "
        "{} --channel-fd 3 3>/dev/null < {}",
        *ncu, metric_list(extra), worker->string(), (dir / "request.json").string());
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
    for (const auto& k : *kernels) {
        total_ns += k.number("gpu__time_duration.sum").value_or(0);
        if (names) names->insert(k.name);
    }
    if (totals) *totals = per_call_totals({kernels->begin(), kernels->end()}, extra, calls);
    return total_ns * 1e-9 / calls;
}

// ncu's gpu__time_duration of the candidate's kernels inside kernelpro's own timing loop: the
// worker's evaluate mode run under ncu without ncu's cache or clock control, so each kernel runs
// in the state our flush left. Median per call over the timed samples (the last `samples` calls).
// Beside the standalone ncu figure it tells a slower kernel (our cold state) from a longer
// interval (what the events hold besides the kernel).
std::optional<double> ncu_in_loop_seconds(CandidateBuilder& builder, const TaskSpec& task, const fs::path& candidate,
                                          EvaluationOptions options, const std::set<std::string>& names, const std::string& cache_control,
                                          std::string& note, const std::vector<std::string>& extra = {}, MetricTotals* totals = nullptr) {
    auto ncu = profile::locate_nvidia_tool("ncu");
    auto worker = find_worker_executable();
    if (!ncu || !worker.ok() || names.empty()) {
        note = "ncu, worker or kernel names missing";
        return std::nullopt;
    }
    WorkerOptions worker_options;
    worker_options.launcher = {*ncu, "--clock-control", "none", "--cache-control", cache_control, "--metrics",
                               metric_list(extra), "--csv", "--print-units", "base", worker->string()};
    worker_options.max_log_bytes = 64u << 20;  // ncu's CSV arrives in the worker's log
    worker_options.watchdog = std::chrono::minutes(5);
    const int samples = 24;
    options.timing.stopping.min_samples = samples;
    options.timing.stopping.max_samples = samples;
    options.timing.stopping.max_seconds = 600;
    options.timing.stopping.min_seconds = 0;
    // ncu's injection needs what the sandbox refuses; this is a measurement of a trusted kernel.
    ::setenv("KERNELPRO_SANDBOX_DISABLE", "all", 1);
    Evaluator evaluator(builder, worker_options);
    auto report = evaluator.evaluate(task, candidate, options);
    ::unsetenv("KERNELPRO_SANDBOX_DISABLE");
    if (!report.ok() || report->status != FailureClass::Ok) {
        note = report.ok() ? report->message.substr(0, 300) : report.error().message;
        return std::nullopt;
    }
    // ncu prints its own lines (==PROF== ...) and the worker's around the CSV: keep the CSV rows.
    std::string csv;
    for (size_t at = 0; at < report->worker_log.size();) {
        size_t end = report->worker_log.find('\n', at);
        if (end == std::string::npos) end = report->worker_log.size();
        std::string_view line(report->worker_log.data() + at, end - at);
        if (!line.empty() && line.front() == '"') csv.append(line).append("\n");
        at = end + 1;
    }
    auto kernels = profile::parse_ncu_csv(csv);
    if (!kernels.ok()) {
        note = kernels.error().message;
        return std::nullopt;
    }
    std::vector<double> durations;  // the candidate's launches, in order
    std::vector<profile::KernelMetrics> launches;
    for (const auto& k : *kernels)
        if (names.count(k.name)) {
            durations.push_back(k.number("gpu__time_duration.sum").value_or(0) * 1e-9);
            launches.push_back(k);
        }
    const size_t per_call = names.size();
    if (durations.size() < per_call * samples) {
        note = fmt::format("{} candidate launches under ncu, expected at least {}", durations.size(), per_call * samples);
        return std::nullopt;
    }
    if (totals) *totals = per_call_totals({launches.end() - static_cast<long>(per_call * samples), launches.end()}, extra, samples);
    std::vector<double> calls;
    for (size_t first = durations.size() - per_call * samples; first < durations.size(); first += per_call) {
        double call = 0;
        for (size_t i = 0; i < per_call; ++i) call += durations[first + i];
        calls.push_back(call);
    }
    return summarize(calls).median;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_eval: evaluation latency, repeatability and agreement with ncu on the example tasks"};
    std::string tasks_dir = "tasks";  // run from the checkout, as scripts/gpu-check does
    std::string json_out;
    int repeats = 5;
    bool with_ncu = true, sandbox_cost = false, ncu_in_loop = false, idle_start = false;
    std::vector<std::string> only;
    StoppingRule stopping;  // the evaluator's defaults unless asked otherwise
    app.add_option("--max-standard-error", stopping.max_standard_error,
                   "Stopping rule: stop once the relative standard error of the mean is under this")->capture_default_str();
    app.add_option("--max-noise", stopping.max_noise, "Stopping rule: stop once the relative standard deviation is under this")
        ->capture_default_str();
    app.add_option("--max-median-interval", stopping.max_median_interval,
                   "Stopping rule: stop once the 95% interval of the median is within this fraction of it (0: off)")->capture_default_str();
    app.add_option("--min-seconds", stopping.min_seconds, "Stopping rule: measured time needed first")->capture_default_str();
    app.add_option("--min-samples", stopping.min_samples, "Stopping rule: samples needed first")->capture_default_str();
    app.add_flag("--idle-start", idle_start, "Start each timed interval on an idle GPU (launch latency included) instead of queued");
    app.add_flag("--ncu-in-loop", ncu_in_loop, "Also run ncu inside the timing loop (its kernel durations in our cold state)");
    std::string loop_cache_control = "none";
    app.add_option("--ncu-in-loop-cache-control", loop_cache_control,
                   "ncu's --cache-control inside the loop: none (our flush alone) or all (ncu's flush on top)")
        ->check(CLI::IsMember({"none", "all"}))->capture_default_str();
    std::vector<std::string> extra_metrics;
    app.add_option("--ncu-metrics", extra_metrics,
                   "More ncu metrics to read beside the duration (standalone and in the loop), e.g. dram__bytes_write.sum")
        ->delimiter(',');
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
    std::vector<std::string> rows, loop_rows, metric_rows;
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
        options.timing.queued_start = !idle_start;
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
            std::fprintf(stderr, "%s run %d: %s %.1f us, %d samples (%s, %s start), timing %.2f s, throttled dropped %d kept %d\n",
                         task->name.c_str(), i + 1, failure_class_name(report->status),
                         report->candidate_median_seconds().value_or(0) * 1e6, report->timing.value("samples", 0),
                         report->timing.value("stop_reason", std::string("?")).c_str(),
                         report->timing.value("start", std::string("?")).c_str(), report->time_seconds,
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
        std::set<std::string> names;
        MetricTotals standalone_totals, loop_totals;
        if (with_ncu && first->status == FailureClass::Ok)
            ncu_s = ncu_seconds_per_call(*task, *first, 5, note, &names, extra_metrics, &standalone_totals);
        std::optional<double> in_loop_s;
        if (ncu_in_loop && ncu_s) {
            std::string loop_note;
            in_loop_s = ncu_in_loop_seconds(builder, *task, candidate, options, names, loop_cache_control, loop_note, extra_metrics,
                                            &loop_totals);
            if (!loop_note.empty()) std::fprintf(stderr, "%s ncu in loop: %s\n", task->name.c_str(), loop_note.c_str());
        }
        if (!extra_metrics.empty())
            metric_rows.push_back(fmt::format("{}: standalone {}; in our loop {}", task->name, format_totals(standalone_totals),
                                              loop_totals.empty() ? "n/a" : format_totals(loop_totals)));
        double ours = summary.median;
        if (in_loop_s)
            loop_rows.push_back(fmt::format("| {:<18} | {:>10.1f} | {:>10.1f} | {:>10.1f} | {:+.1f}% | {:+.1f}% |", task->name, ours * 1e6,
                                            *in_loop_s * 1e6, *ncu_s * 1e6, 100 * (*in_loop_s - *ncu_s) / *ncu_s,
                                            100 * (ours - *in_loop_s) / *in_loop_s));
        rows.push_back(fmt::format("| {:<18} | {:<14} | {:>6.2f} | {:>6.2f} | {:>5.2f} | {:>6.2f} | {:>10.1f} | {:>6.2f}x | {:>6.2f}% | {:>10} | {:>7} |",
                                   task->name, failure_class_name(first->status), first->compile_seconds, first->verify_seconds,
                                   first->time_seconds, first->total_seconds, ours * 1e6, first->speedup().value_or(0),
                                   100 * spread, ncu_s ? fmt::format("{:.1f}", *ncu_s * 1e6) : "n/a",
                                   ncu_s && ours > 0 ? fmt::format("{:+.1f}%", 100 * (ours - *ncu_s) / *ncu_s) : note.empty() ? "n/a" : "err"));
        if (!note.empty()) std::fprintf(stderr, "%s ncu: %s\n", task->name.c_str(), note.c_str());
        all.push_back({{"task", task->name}, {"runs", runs}, {"median_of_medians_s", ours}, {"spread", spread},
                       {"ncu_seconds_per_call", ncu_s ? nlohmann::json(*ncu_s) : nlohmann::json()},
                       {"ncu_in_loop_seconds_per_call", in_loop_s ? nlohmann::json(*in_loop_s) : nlohmann::json()}});
    }
    std::printf("\n| task | status | compile s | verify s | time s | total s | median us | speedup | spread of %d medians | ncu us | ours vs ncu |\n",
                repeats);
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const auto& r : rows) std::printf("%s\n", r.c_str());
    if (!loop_rows.empty()) {
        std::printf("\n| task | ours us | ncu in our loop us | ncu standalone us | in loop vs standalone | ours vs in loop |\n");
        std::printf("|---|---|---|---|---|---|\n");
        for (const auto& r : loop_rows) std::printf("%s\n", r.c_str());
    }
    if (!metric_rows.empty()) {
        std::printf("\nncu metrics per call:\n");
        for (const auto& r : metric_rows) std::printf("  %s\n", r.c_str());
    }
    auto med = [](std::vector<double> v) { return summarize(std::move(v)).median; };
    std::printf("\nmedian over tasks: compile %.2f s, verify %.2f s, time %.2f s, total %.2f s per candidate; max spread %.2f%%\n",
                med(compile_s), med(verify_s), med(time_s), med(total_s),
                spreads.empty() ? 0.0 : 100 * *std::max_element(spreads.begin(), spreads.end()));
    if (!json_out.empty()) std::ofstream(json_out) << all.dump(2);
    return 0;
}
