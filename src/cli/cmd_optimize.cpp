// kernelpro optimize TASK [--from KERNEL.cu] [--budget-evals N] [--budget-seconds S] [--seed N]
//                         [--strategy mcts|greedy] [--out DIR] [--store PATH] [--llm PROVIDER:MODEL]
// Searches parameter moves with the built-in profile-guided tuner, starting from --from, else the
// task's candidates/tuned.cu, else its reference. Writes OUT/best.cu, OUT/best.json, OUT/summary.md
// and OUT/report.html.
// Exit codes: 0 a correct kernel was found, 1 none was, 2 usage or task error, 3 environment.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <ctime>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "build/candidate_builder.h"
#include "cli/commands.h"
#include "cli/search_session.h"
#include "cli/stop_rule_options.h"
#include "common/files.h"
#include "optimize/run_outputs.h"
#include "optimize/run_settings.h"
#include "agents/combined_proposer.h"
#include "agents/llm_proposer.h"
#include "agents/scripted_chat_client.h"
#include "llm/client_factory.h"
#include "llm/llm_config.h"
#include "report/report_file.h"
#include "sandbox/sandbox_report.h"
#include "search/proposers/parameter_space.h"
#include "search/proposers/tuner_proposer.h"
#include "search/search_driver.h"
#include "search/selection_policy.h"
#include "store/run_store.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace {
struct OptimizeArgs {
    std::string task, from, out, store, strategy = "mcts", llm, llm_config, llm_record, llm_replay, feedback = "tools";
    GivenStopLimits limits;
    bool no_memory = false, profile = false;
    std::uint64_t seed = 0;
    int trials = 3;
    double max_time = 1.0, min_time = 0.05;
    bool quiet = false, require_sandbox = false;
};

std::atomic<search::SearchDriver*> g_driver{nullptr};
extern "C" void on_interrupt(int) {
    if (auto* d = g_driver.load()) d->request_stop();
}

std::string utc_stamp() {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}
}  // namespace

namespace {
// OUT/best.cu once more in a fresh worker (another seed, poison and buffer layout); the verdict and
// the sandbox it ran in go to the end of OUT/summary.md. False when the kernel fails it.
bool reverify_best(optimize::GpuEvaluator& evaluator, const std::filesystem::path& out_dir) {
    auto check = evaluator.reverify(out_dir / "best.cu");
    if (!check) {
        std::cerr << "warning: the best kernel could not be re-verified: " << check.error().message << "\n";
        return true;
    }
    std::string sandbox = check->report.sandbox.is_object() ? sandbox::SandboxReport::from_json(check->report.sandbox).summary() : "not reported";
    std::ofstream(out_dir / "summary.md", std::ios::app) << "\n## Re-verification\n\n" << check->summary() << "\n\nSandbox: " << sandbox << "\n";
    std::cerr << check->summary() << "\n";
    if (!check->passed()) std::cout << "the best kernel failed re-verification; see " << (out_dir / "summary.md").string() << "\n";
    return check->passed();
}
}  // namespace

// Runs a driver to completion with the live progress line and Ctrl-C handling (also used by runs resume).
int run_search_session(search::SearchDriver& driver, store::RunStore& store, optimize::GpuEvaluator& evaluator, const std::string& task_name,
                       const std::filesystem::path& out_dir, bool quiet,
                       const std::function<Result<search::SearchOutcome>()>& go) {
    bool tty = isatty(STDERR_FILENO);
    if (!quiet) {
        driver.set_progress_callback([tty](const search::SearchProgress& p) {
            std::cerr << (tty ? "\r\033[K" : "") << optimize::format_progress(p) << (tty ? "" : "\n") << std::flush;
        });
        if (tty)
            evaluator.set_on_start([](const search::EvaluationRequest& r) {
                std::cerr << fmt::format("  [evaluating node {}]", r.node_id) << std::flush;
            });
    }
    g_driver.store(&driver);
    auto previous = std::signal(SIGINT, on_interrupt);
    auto outcome = go();
    std::signal(SIGINT, previous);
    g_driver.store(nullptr);
    if (!quiet && tty) std::cerr << "\n";
    if (!outcome.ok()) {
        std::cerr << "error: " << outcome.error().message << "\n";
        return kExitEnvironment;
    }
    auto found = optimize::write_run_outputs(driver, *outcome, evaluator, task_name, out_dir);
    if (!found.ok()) {
        std::cerr << "error: writing results: " << found.error().message << "\n";
        return kExitEnvironment;
    }
    // The report is a view of the store: when it cannot be written the run's results still stand.
    auto report = report::write_run_report(store, outcome->run_id, out_dir / "report.html");
    if (!report.ok()) std::cerr << "note: no report.html: " << report.error().message << "\n";
    else for (const auto& notice : report->notices) std::cerr << "note: report.html: " << notice << "\n";
    std::cerr << fmt::format("run {}: {} after {} evaluations, {:.1f} s\n", outcome->run_id,
                             outcome->stop_reason.name(), outcome->spend.evaluations,
                             outcome->spend.elapsed_seconds);
    if (!outcome->stop_detail.empty()) std::cerr << "  " << outcome->stop_detail << "\n";
    if (*found && !reverify_best(evaluator, out_dir)) return kExitCandidateFailed;
    if (*found) {
        std::cout << fmt::format("best: {:.3f}x over the baseline", outcome->best_speedup_over_baseline);
        if (outcome->best_speedup) std::cout << fmt::format(", {:.3f}x over the reference", *outcome->best_speedup);
        if (outcome->best_roofline_fraction)
            std::cout << fmt::format(", {:.1f}% of the roofline floor", 100.0 * *outcome->best_roofline_fraction);
        std::cout << "\n" << (out_dir / "best.cu").string() << "\n" << (out_dir / "summary.md").string() << "\n";
        if (report.ok()) std::cout << (out_dir / "report.html").string() << "\n";
        std::cout << fmt::format("resume with: kernelpro runs resume {}\n", outcome->run_id);
        return kExitOk;
    }
    std::cout << "no correct kernel found; see " << (out_dir / "summary.md").string() << "\n";
    if (outcome->stop_reason.kind == search::StopKind::evaluator_error) return kExitEnvironment;
    return kExitCandidateFailed;
}

namespace {

// `script:FILE` (a hand-written JSONL of replies) or PROVIDER:MODEL (configuration from the
// environment or $KERNELPRO_LLM_CONFIG, see docs/llm.md).
Result<std::shared_ptr<llm::LlmAgents>> make_llm_agents(const std::string& spec, const OptimizeArgs& a) {
    std::shared_ptr<llm::ChatClient> client;
    if (spec.rfind("script:", 0) == 0) {
        auto scripted = agents::ScriptedChatClient::open(spec.substr(7));
        if (!scripted.ok()) return scripted.error();
        client = *scripted;
    } else {
        llm::LlmConfigSources sources;
        sources.spec = spec;
        if (!a.llm_config.empty()) sources.config_file = a.llm_config;
        sources.environment = llm::read_llm_environment();
        auto config = llm::load_llm_config(sources);
        if (!config.ok()) return config.error();
        if (!a.llm_record.empty()) config->record_path = a.llm_record;
        if (!a.llm_replay.empty()) config->replay_path = a.llm_replay;
        auto made = llm::make_chat_client(*config, std::make_shared<llm::SpendTracker>());
        if (!made.ok()) return made.error();
        client = *made;
    }
    auto agents = llm::LlmAgents::create(client);
    if (!agents.ok()) return agents.error();
    return std::make_shared<llm::LlmAgents>(std::move(*agents));
}

// What the agents are told about the task: its description, tensors and minimal cost.
std::string describe_task_for_agents(const TaskSpec& task) {
    std::string text = task.name + ": " + task.description + "\n";
    auto tensors = [&](const char* label, const std::vector<TensorSpec>& list) {
        for (const auto& t : list) {
            std::string shape;
            for (auto d : t.shape) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
            text += fmt::format("{} {}: {} [{}]\n", label, t.name, dtype_name(t.dtype), shape);
        }
    };
    tensors("input", task.inputs);
    tensors("output", task.outputs);
    text += fmt::format("minimal cost: {:.3g} FLOP ({}), {:.3g} bytes\n", task.cost.flops, task.cost.precision, task.cost.bytes);
    return text;
}

}  // namespace

Handler register_optimize(CLI::App& root) {
    auto* cmd = root.add_subcommand("optimize", "Search for a faster kernel (profile-guided parameter tuner, MCTS)");
    auto a = std::make_shared<OptimizeArgs>();
    cmd->add_option("task", a->task, "Task folder (holding task.toml)")->required();
    cmd->add_option("--from", a->from, "Start from this kernel (default: candidates/tuned.cu, else the reference)")
        ->check(CLI::ExistingFile);
    add_stop_rule_options(*cmd, a->limits, /*with_defaults=*/true);
    cmd->add_option("--seed", a->seed, "Search seed (proposals and selection are deterministic for a seed)");
    cmd->add_option("--strategy", a->strategy, "Selection policy: " + search::selection_policies().joined_names(" | "))
        ->capture_default_str();
    cmd->add_option("--out", a->out, "Output folder (default: kernelpro-out/TASK-UTCSTAMP)");
    cmd->add_option("--store", a->store, "Run store (default: .kernelpro/runs.db in the current folder)");
    cmd->add_option("--llm", a->llm,
                    "LLM rewrite agents: PROVIDER:MODEL (openai:..., anthropic:..., see docs/llm.md), or script:FILE.jsonl "
                    "for a hand-written script of replies");
    cmd->add_option("--llm-config", a->llm_config, "LLM configuration file (TOML, see docs/llm.md)")->check(CLI::ExistingFile);
    cmd->add_option("--llm-record", a->llm_record, "Append every LLM exchange to this JSONL file (for replay)");
    cmd->add_option("--llm-replay", a->llm_replay, "Serve the LLM exchanges from this recording instead of a live model");
    cmd->add_option("--feedback", a->feedback, "What LLM agents see of the profile: tools (findings), raw (metrics) or none (ablation)")
        ->capture_default_str()->check(CLI::IsMember({"tools", "raw", "none"}));
    cmd->add_flag("--profile", a->profile, "Profile every correct candidate (ncu, SASS, ptxas) so the tuner and agents act on its findings");
    cmd->add_flag("--no-memory", a->no_memory, "Ablation: proposers see no lessons from earlier attempts");
    cmd->add_option("--trials", a->trials, "Correctness trials per candidate")->capture_default_str()->check(CLI::Range(1, 100));
    cmd->add_option("--max-time", a->max_time, "Timing cap per candidate, seconds")->capture_default_str();
    cmd->add_option("--min-time", a->min_time, "Measured time needed per candidate, seconds")->capture_default_str();
    cmd->add_flag("-q,--quiet", a->quiet, "No progress line");
    cmd->add_flag("--require-sandbox", a->require_sandbox,
                  "Refuse (exit 3) unless every sandbox layer is active (see `kernelpro doctor`)");
    return [a]() -> int {
        if (auto policy = search::selection_policies().lookup(a->strategy); !policy.ok()) {
            std::cerr << "error: --strategy: " << policy.error().message << "\n";
            return kExitUsage;
        }
        auto task = load_task(a->task);
        if (!task.ok()) {
            std::cerr << task.error().message << "\n";
            return kExitUsage;
        }
        std::filesystem::path baseline_path;
        if (!a->from.empty()) baseline_path = a->from;
        else if (std::filesystem::exists(task->directory / "candidates" / "tuned.cu"))
            baseline_path = task->directory / "candidates" / "tuned.cu";
        else if (task->reference.source) baseline_path = *task->reference.source;
        else {
            std::cerr << "error: no starting kernel: pass --from (the task has no candidates/tuned.cu and no reference source)\n";
            return kExitUsage;
        }
        auto source = read_text_file(baseline_path);
        if (!source.ok()) {
            std::cerr << "error: " << source.error().message << "\n";
            return kExitUsage;
        }
        search::Candidate baseline{*source, {}};
        auto space = parse_tunables(*source);
        if (!space.ok()) {
            std::cerr << "error: " << baseline_path.string() << ": " << space.error().message << "\n";
            return kExitUsage;
        }
        if (space->parameters.empty() && a->llm.empty())
            std::cerr << "note: " << baseline_path.string()
                      << " declares no kp:tune parameters; the tuner has nothing to move (only the baseline is evaluated)\n";
        else baseline.params = search::resolve_point(*source, *space, {});

        std::filesystem::path out_dir = a->out.empty() ? std::filesystem::path("kernelpro-out") / (task->name + "-" + utc_stamp())
                                                       : std::filesystem::path(a->out);
        std::filesystem::path store_path =
            a->store.empty() ? store::RunStore::default_path(std::filesystem::current_path()) : std::filesystem::path(a->store);
        auto store = store::RunStore::open(store_path);
        if (!store.ok()) {
            std::cerr << "error: run store " << store_path.string() << ": " << store.error().message << "\n";
            return kExitEnvironment;
        }

        search::SearchConfig config;
        config.strategy = a->strategy;
        config.seed = a->seed;
        auto limits = apply_given_limits(a->limits, config.stop_limits);
        if (!limits.ok()) {
            std::cerr << "error: " << limits.error().message << "\n";
            return kExitUsage;
        }
        config.stop_limits = *limits;
        config.memory_enabled = !a->no_memory;
        config.feedback = a->feedback == "none" ? search::FeedbackKind::none
                          : a->feedback == "raw" ? search::FeedbackKind::raw_metrics
                                                 : search::FeedbackKind::tool_findings;

        BuilderOptions build_options;
        build_options.arch = detect_gpu_arch();
        CandidateBuilder builder(build_options);
        kp::Evaluator gpu(builder);
        EvaluationOptions evaluation_options = optimize::search_evaluation_options(a->trials, a->max_time, a->min_time);
        evaluation_options.sandbox.required = a->require_sandbox;
        optimize::GpuEvaluator evaluator(*task, gpu, evaluation_options, out_dir);
        if (a->profile) {
            diagnose::ProfileOptions profile_options;
            profile_options.budget_seconds = 60;
            profile_options.source_name = "candidate.cu";  // what agents see: the code they were given, by line
            evaluator.enable_profiling(profile_options);
        }
        search::TunerProposer tuner;
        std::unique_ptr<agents::LlmProposer> llm_proposer;
        std::unique_ptr<agents::CombinedProposer> combined;
        search::Proposer* proposer = &tuner;
        if (!a->llm.empty()) {
            auto agents = make_llm_agents(a->llm, *a);
            if (!agents.ok()) {
                std::cerr << "error: --llm " << a->llm << ": " << agents.error().message << "\n";
                return kExitUsage;
            }
            llm_proposer = std::make_unique<agents::LlmProposer>(*agents, describe_task_for_agents(*task));
            combined = std::make_unique<agents::CombinedProposer>(tuner, *llm_proposer);
            proposer = combined.get();
            // The fixer repairs correctness failures and crashes too, not only compile errors.
            config.repairable = {search::StatusClass::compile_error, search::StatusClass::incorrect, search::StatusClass::crash,
                                 search::StatusClass::timeout, search::StatusClass::rejected_by_guard,
                                 search::StatusClass::rejected_by_sandbox,
                                 search::StatusClass::out_of_memory};
            config.max_repair_chain = 3;
        }
        search::SearchDriver driver(*store, evaluator, *proposer);
        search::TaskIdentity identity{task->name, optimize::task_fingerprint(*task)};
        std::cerr << fmt::format("optimize {} from {} ({} parameter points), {}, out {}\n", task->name,
                                 baseline_path.string(), space->parameters.empty() ? 1 : search::enumerate_points(*space).size(),
                                 describe_stop_limits(config.stop_limits), out_dir.string());
        return run_search_session(driver, *store, evaluator, task->name, out_dir, a->quiet,
                                  [&] { return driver.start(identity, baseline, config); });
    };
}

}  // namespace kp::cli
