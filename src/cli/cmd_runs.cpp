// kernelpro runs list | show ID | resume ID [--task DIR] [--budget-evals N] [any stop rule flag]
// Reads the run store (default .kernelpro/runs.db in the current folder, or --store PATH).
// Exit codes: 0 success (resume: a correct kernel found), 1 none found, 2 usage, 3 environment.
#include <iostream>

#include <fmt/format.h>

#include "build/candidate_builder.h"
#include "cli/commands.h"
#include "cli/search_session.h"
#include "optimize/run_settings.h"
#include "cli/stop_rule_options.h"
#include "search/evaluation_outcome.h"
#include "search/proposers/tuner_proposer.h"
#include "search/search_config.h"
#include "search/search_driver.h"
#include "store/run_store.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace {
struct RunsArgs {
    std::string store, task, out;
    std::int64_t id = 0;
    GivenStopLimits limits;
    int trials = 3;
    double max_time = 1.0, min_time = 0.05;
    bool quiet = false;
};

Result<store::RunStore> open_store(const std::string& path) {
    std::filesystem::path p = path.empty() ? store::RunStore::default_path(std::filesystem::current_path())
                                           : std::filesystem::path(path);
    if (!std::filesystem::exists(p)) return make_error("no run store at " + p.string() + " (run `kernelpro optimize` first)");
    return store::RunStore::open(p);
}

std::string opt(const std::optional<double>& v, const char* f) { return v ? fmt::format(fmt::runtime(f), *v) : "-"; }

int list_runs(const RunsArgs& a) {
    auto st = open_store(a.store);
    if (!st.ok()) {
        std::cerr << "error: " << st.error().message << "\n";
        return kExitEnvironment;
    }
    auto runs = st->list_runs();
    if (!runs.ok()) {
        std::cerr << "error: " << runs.error().message << "\n";
        return kExitEnvironment;
    }
    std::cout << fmt::format("{:>5}  {:<20} {:<12} {:<18} {:>6} {:>6} {:>8} {:>9}  {}\n", "id", "task", "status",
                             "stop reason", "nodes", "evals", "best", "elapsed", "created");
    for (const auto& r : *runs)
        std::cout << fmt::format("{:>5}  {:<20} {:<12} {:<18} {:>6} {:>6} {:>8} {:>8.1f}s  {}\n", r.run.id, r.run.task_name,
                                 store::run_status_name(r.run.status), r.run.stop_reason, r.nodes, r.evaluations,
                                 opt(r.best_speedup, "{:.3f}x"), r.run.elapsed_seconds, r.run.created_at);
    if (runs->empty()) std::cout << "(no runs)\n";
    return kExitOk;
}

int show_run(const RunsArgs& a) {
    auto st = open_store(a.store);
    if (!st.ok()) {
        std::cerr << "error: " << st.error().message << "\n";
        return kExitEnvironment;
    }
    auto summary = st->summarize_run(a.id);
    if (!summary.ok()) {
        std::cerr << "error: " << summary.error().message << "\n";
        return kExitUsage;
    }
    const auto& r = *summary;
    std::cout << fmt::format("run {}: task {}, {} ({}), {} nodes, {} evaluations, {} pending, {:.1f} s, best {}\n", r.run.id,
                             r.run.task_name, store::run_status_name(r.run.status), r.run.stop_reason, r.nodes,
                             r.evaluations, r.pending_nodes, r.run.elapsed_seconds, opt(r.best_speedup, "{:.3f}x"));
    if (r.tokens > 0) std::cout << fmt::format("LLM: {} tokens, ${:.4f}\n", r.tokens, r.cost_usd);
    auto nodes = st->load_nodes(a.id);
    auto evaluations = st->load_evaluations(a.id);
    if (!nodes.ok() || !evaluations.ok()) {
        std::cerr << "error: " << (nodes.ok() ? evaluations.error().message : nodes.error().message) << "\n";
        return kExitEnvironment;
    }
    std::map<std::int64_t, const store::EvaluationRecord*> by_node;
    for (const auto& e : *evaluations) by_node[e.node_id] = &e;
    std::cout << fmt::format("{:>5} {:>6} {:<15} {:<15} {:>10} {:>9} {:>7} {:>7}  {} | {}\n", "node", "parent", "origin",
                             "status", "median_us", "speedup", "%floor", "reward", "parameters", "rationale");
    for (const auto& n : *nodes) {
        auto it = by_node.find(n.node_id);
        const store::EvaluationRecord* e = it == by_node.end() ? nullptr : it->second;
        std::string params;
        auto parsed = search::params_from_json(n.params_json);
        if (parsed.ok())
            for (const auto& [k, v] : *parsed) params += (params.empty() ? "" : ",") + k + "=" + v;
        std::cout << fmt::format(
            "{:>5} {:>6} {:<15} {:<15} {:>10} {:>9} {:>7} {:>7}  {} | {}{}\n", n.node_id,
            n.parent_id ? std::to_string(*n.parent_id) : "-", n.proposal_kind, e ? e->status_class : "pending",
            e && e->median_seconds ? fmt::format("{:.2f}", *e->median_seconds * 1e6) : "-",
            e ? opt(e->speedup, "{:.3f}x") : "-",
            e && e->roofline_fraction ? fmt::format("{:.1f}", 100 * *e->roofline_fraction) : "-",
            e ? fmt::format("{:.3f}", e->reward) : "-", params.empty() ? "-" : params, n.rationale,
            n.close_reason.empty() ? "" : " [closed: " + n.close_reason + "]");
    }
    return kExitOk;
}

int resume_run(const RunsArgs& a) {
    auto st = open_store(a.store);
    if (!st.ok()) {
        std::cerr << "error: " << st.error().message << "\n";
        return kExitEnvironment;
    }
    auto run = st->load_run(a.id);
    if (!run.ok()) {
        std::cerr << "error: " << run.error().message << "\n";
        return kExitUsage;
    }
    std::filesystem::path task_dir = a.task.empty() ? std::filesystem::path("tasks") / run->task_name : std::filesystem::path(a.task);
    auto task = load_task(task_dir);
    if (!task.ok()) {
        std::cerr << task.error().message << "\n(pass the task folder with --task)\n";
        return kExitUsage;
    }
    if (task->name != run->task_name || optimize::task_fingerprint(*task) != run->task_fingerprint) {
        std::cerr << "error: run " << a.id << " optimized task " << run->task_name
                  << " as it was then; " << task_dir.string() << " is another task or has changed since\n";
        return kExitUsage;
    }
    search::ResumeOptions resume;
    auto changes = given_limit_changes(a.limits);
    if (!changes.ok()) {
        std::cerr << "error: " << changes.error().message << "\n";
        return kExitUsage;
    }
    resume.stop_limits = *changes;
    std::filesystem::path out_dir = a.out.empty() ? std::filesystem::path("kernelpro-out") / fmt::format("{}-run{}", run->task_name, a.id)
                                                  : std::filesystem::path(a.out);
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    kp::Evaluator gpu(builder);
    optimize::GpuEvaluator evaluator(*task, gpu, optimize::search_evaluation_options(a.trials, a.max_time, a.min_time), out_dir);
    search::TunerProposer tuner;
    search::SearchDriver driver(*st, evaluator, tuner);
    std::cerr << fmt::format("resuming run {} ({}), out {}\n", a.id, run->task_name, out_dir.string());
    return run_search_session(driver, *st, evaluator, task->name, out_dir, a.quiet,
                              [&] { return driver.resume(a.id, resume); });
}
}  // namespace

Handler register_runs(CLI::App& root) {
    auto* cmd = root.add_subcommand("runs", "List, inspect and resume optimization runs in the run store");
    cmd->require_subcommand(1);
    auto a = std::make_shared<RunsArgs>();
    cmd->add_option("--store", a->store, "Run store (default: .kernelpro/runs.db in the current folder)");
    auto* list = cmd->add_subcommand("list", "All runs, newest first");
    auto* show = cmd->add_subcommand("show", "One run's nodes and evaluations");
    show->add_option("id", a->id, "Run id")->required();
    auto* resume = cmd->add_subcommand("resume", "Continue a run (after Ctrl-C, a crash or an exhausted budget)");
    resume->add_option("id", a->id, "Run id")->required();
    resume->add_option("--task", a->task, "Task folder (default: tasks/<task name>)");
    resume->add_option("--out", a->out, "Output folder (default: kernelpro-out/TASK-runID)");
    add_stop_rule_options(*resume, a->limits, /*with_defaults=*/false);
    resume->add_option("--trials", a->trials, "Correctness trials per candidate")->capture_default_str();
    resume->add_option("--max-time", a->max_time, "Timing cap per candidate, seconds")->capture_default_str();
    resume->add_option("--min-time", a->min_time, "Measured time needed per candidate, seconds")->capture_default_str();
    resume->add_flag("-q,--quiet", a->quiet, "No progress line");
    return [a, list, show, resume]() -> int {
        if (list->parsed()) return list_runs(*a);
        if (show->parsed()) return show_run(*a);
        if (resume->parsed()) return resume_run(*a);
        return kExitUsage;
    };
}

}  // namespace kp::cli
