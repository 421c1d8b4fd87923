// kernelpro optimize TASK [--from KERNEL.cu] [--proposer tuner,llm,...] [--llm PROVIDER:MODEL | script:FILE]
//                         [--strategy NAME] [--seed N] [any stop rule flag] [--out DIR] [--store PATH]
//                         [--objective time|energy|edp [--max-slowdown 2%]] [--energy [--energy-windows N]]
//                         [--gpus all|0,2|N]
// Searches with the chosen proposers (default: the profile-guided tuner; --llm adds the LLM agents),
// starting from --from, else the task's candidates/tuned.cu, else its reference. Everything that
// defines the run is stored with it (its recipe), so `runs resume` rebuilds the same loop. Writes
// OUT/best.cu, OUT/best.json, OUT/summary.md.
// Exit codes: 0 a correct kernel was found, 1 none was, 2 usage or task error, 3 environment.
#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "autoprofiler/profile_walk.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "cli/gpu_pool_option.h"
#include "cli/llm_option.h"
#include "cli/search_session.h"
#include "cli/stop_rule_options.h"
#include "common/files.h"
#include "eval/sample_statistics.h"
#include "kernelbench/baseline_timing.h"
#include "kernelbench/first_version.h"
#include "llm/llm_provider.h"
#include "optimize/run_settings.h"
#include "search/proposer_registry.h"
#include "search/proposers/parameter_space.h"
#include "search/search_driver.h"
#include "search/selection_policy.h"
#include "store/run_store.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace {

namespace fs = std::filesystem;

struct OptimizeArgs {
    std::string task, from, out, store, strategy = "mcts", llm, llm_config, llm_record, llm_replay, feedback = "tools", gpus;
    std::vector<std::string> proposers;
    GivenStopLimits limits;
    std::string objective = "time", max_slowdown = "2%";
    bool energy = false;
    int energy_windows = 3;
    bool no_memory = false, profile = false;
    std::string profile_tree, profile_tree_costs = "h200";
    int profile_budget_passes = 0;
    std::uint64_t seed = 0;
    int trials = 3;
    double max_time = 1.0, min_time = StoppingRule{}.min_seconds;
    bool quiet = false, require_sandbox = false;
};

struct Baseline {
    fs::path path;
    search::Candidate candidate;
    std::size_t points = 1;  // of its kp:tune space
};

// "2%" or "0.02".
std::optional<double> parse_fraction(const std::string& text) {
    try {
        size_t used = 0;
        double value = std::stod(text, &used);
        std::string rest = text.substr(used);
        if (rest == "%") return value / 100.0;
        if (rest.empty()) return value;
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

std::string absolute(const std::string& path) { return path.empty() ? "" : fs::absolute(path).lexically_normal().string(); }

// --proposer as given, with llm added when --llm names a model; the tuner when nothing is said.
std::vector<std::string> chosen_proposers(const OptimizeArgs& a) {
    std::vector<std::string> names = a.proposers;
    if (names.empty()) names.push_back("tuner");
    if (!a.llm.empty() && std::find(names.begin(), names.end(), "llm") == names.end()) names.push_back("llm");
    return names;
}

// --from, else candidates/tuned.cu, else the reference; with its parameters at their defaults.
Result<Baseline> load_baseline(const OptimizeArgs& a, const TaskSpec& task) {
    Baseline baseline;
    if (!a.from.empty()) baseline.path = a.from;
    else if (fs::exists(task.directory / "candidates" / "tuned.cu")) baseline.path = task.directory / "candidates" / "tuned.cu";
    else if (task.reference.source) baseline.path = *task.reference.source;
    else return make_error("no starting kernel: pass --from (the task has no candidates/tuned.cu and no reference source)");
    auto source = read_text_file(baseline.path);
    if (!source) return source.error();
    auto space = parse_tunables(*source);
    if (!space) return make_error(baseline.path.string() + ": " + space.error().message);
    baseline.candidate.source = *source;
    if (space->parameters.empty()) {
        std::cerr << "note: " << baseline.path.string()
                  << " declares no kp:tune parameters: proposers that move parameters have nothing to move\n";
    } else {
        baseline.candidate.params = search::resolve_point(*source, *space, {});
        baseline.points = search::enumerate_points(*space).size();
    }
    return baseline;
}

search::RunRecipe recipe_from(const OptimizeArgs& a, const TaskSpec& task, const Baseline& baseline) {
    search::RunRecipe recipe;
    recipe.task_given = a.task;
    recipe.task_path = absolute(task.directory.string());
    recipe.baseline_given = a.from;
    recipe.baseline_path = absolute(baseline.path.string());
    recipe.proposers = chosen_proposers(a);
    recipe.llm = {a.llm, absolute(a.llm_config), absolute(a.llm_record), absolute(a.llm_replay), nullptr};
    recipe.evaluation = {a.trials, a.max_time, a.min_time, a.require_sandbox};
    recipe.evaluation.energy = a.energy;
    recipe.evaluation.energy_windows = a.energy_windows;
    recipe.profile.enabled = a.profile || !a.profile_tree.empty();
    recipe.profile.tree = a.profile_tree;
    recipe.profile.tree_costs = a.profile_tree_costs;
    recipe.profile.tree_budget_passes = a.profile_budget_passes;
    recipe.out_dir = absolute(a.out);  // none given: assemble_session makes a folder of the run's own
    recipe.store = absolute(a.store.empty() ? store::RunStore::default_path(fs::current_path()).string() : a.store);
    recipe.working_directory = fs::current_path().string();
    return recipe;
}

Result<search::SearchConfig> config_from(const OptimizeArgs& a, const std::vector<std::string>& proposers) {
    search::SearchConfig config;
    config.strategy = a.strategy;
    config.seed = a.seed;
    auto limits = apply_given_limits(a.limits, config.stop_limits);
    if (!limits) return limits.error();
    config.stop_limits = *limits;
    auto slowdown = parse_fraction(a.max_slowdown);
    if (!slowdown) return make_error("--max-slowdown must be a fraction such as 2% or 0.02, got '" + a.max_slowdown + "'");
    config.objective = {a.objective, *slowdown};
    if (auto objective = search::check_objective(config.objective); !objective)
        return make_error("--objective: " + objective.error().message);
    config.memory_enabled = !a.no_memory;
    config.feedback = a.feedback == "none"  ? search::FeedbackKind::none
                      : a.feedback == "raw" ? search::FeedbackKind::raw_metrics
                                            : search::FeedbackKind::tool_findings;
    search::adjust_config_for(proposers, config);
    return config;
}

void add_options(CLI::App& cmd, OptimizeArgs& a) {
    cmd.add_option("task", a.task, "Task folder (holding task.toml)")->required();
    cmd.add_option("--from", a.from, "Start from this kernel (default: candidates/tuned.cu, else the reference)")
        ->check(CLI::ExistingFile);
    cmd.add_option("--proposer", a.proposers,
                   "Where new versions come from, one or more (comma-separated): " + search::proposers().joined_names(" | ") +
                       " (default: tuner; --llm adds llm)")
        ->delimiter(',');
    add_stop_rule_options(cmd, a.limits, /*with_defaults=*/true);
    cmd.add_option("--seed", a.seed, "Search seed (proposals and selection are deterministic for a seed)");
    cmd.add_option("--strategy", a.strategy, "Selection policy: " + search::selection_policies().joined_names(" | "))
        ->capture_default_str();
    cmd.add_option("--out", a.out, "Output folder (default: kernelpro-out/TASK-UTCSTAMP)");
    cmd.add_option("--store", a.store, "Run store (default: .kernelpro/runs.db in the current folder)");
    cmd.add_option("--llm", a.llm,
                   "The llm proposer's model, PROVIDER:MODEL (providers: " + llm::llm_providers().joined_names(", ") +
                       "; e.g. openai:gpt-4.1, or script:FILE.jsonl for a hand-written script of replies; see docs/llm.md). "
                       "Implies --proposer llm");
    cmd.add_option("--llm-config", a.llm_config, "LLM configuration file (TOML, see docs/llm.md)")->check(CLI::ExistingFile);
    cmd.add_option("--llm-record", a.llm_record, "Append every LLM exchange to this JSONL file (for replay)");
    cmd.add_option("--llm-replay", a.llm_replay, "Serve the LLM exchanges from this recording instead of a live model");
    cmd.add_option("--feedback", a.feedback, "What LLM agents see of the profile: tools (findings), raw (metrics) or none (ablation)")
        ->capture_default_str()
        ->check(CLI::IsMember({"tools", "raw", "none"}));
    cmd.add_flag("--profile", a.profile, "Profile every correct candidate (ncu, SASS, ptxas) so the tuner and agents act on its findings");
    cmd.add_option("--profile-tree", a.profile_tree,
                   "Profiling tree (docs/autoprofiler.md): a file, or none | roofline | full; each kernel's leaf picks the findings "
                   "the tuner and agents read. Implies --profile");
    cmd.add_option("--profile-tree-costs", a.profile_tree_costs, "The tree's action costs: a GPU name or a cost file")->capture_default_str();
    cmd.add_option("--profile-budget-passes", a.profile_budget_passes, "The tree's budget in replay passes per candidate (0: unbounded)")
        ->check(CLI::NonNegativeNumber);
    cmd.add_flag("--no-memory", a.no_memory, "Ablation: proposers see no lessons from earlier attempts");
    cmd.add_option("--trials", a.trials, "Correctness trials per candidate")->capture_default_str()->check(CLI::Range(1, 100));
    cmd.add_option("--max-time", a.max_time, "Timing cap per candidate, seconds")->capture_default_str()->check(finite_at_least(0));
    cmd.add_option("--min-time", a.min_time, "Measured time needed per candidate, seconds")->capture_default_str()->check(finite_at_least(0));
    cmd.add_option("--objective", a.objective, "What to optimize: " + search::objectives().joined_names(" | ") +
                                                   " (time; energy: joules per call at matched speed; edp: joules x seconds)")
        ->capture_default_str();
    cmd.add_option("--max-slowdown", a.max_slowdown,
                   "energy: how much slower than the fastest kernel the winner may be (2% or 0.02)")
        ->capture_default_str();
    cmd.add_flag("--energy", a.energy, "Measure joules per call of every candidate even when the objective does not need it");
    cmd.add_option("--energy-windows", a.energy_windows, "Energy windows per candidate")->capture_default_str()->check(CLI::Range(1, 50));
    add_gpus_option(cmd, a.gpus);
    cmd.add_flag("-q,--quiet", a.quiet, "No progress line");
    cmd.add_flag("--require-sandbox", a.require_sandbox,
                 "Refuse (exit 3) unless every sandbox layer is active (see `kernelpro doctor`)");
}

// An imported PyTorch task has no kernel to start from: with --llm the writer writes the first
// version (OUT/first_version.cu, which becomes --from); without, one line says what is needed.
// 0 when there is a start (given or written), else the exit code.
int write_first_version_if_needed(OptimizeArgs& a, const TaskSpec& task, std::optional<kernelbench::FirstVersion>& written) {
    if (!a.from.empty() || fs::exists(task.directory / "candidates" / "tuned.cu") || task.reference.source || !task.reference.pytorch)
        return kExitOk;
    if (a.llm.empty()) {
        std::cerr << "error: " << kernelbench::no_starting_kernel_message(task) << "\n";
        return kExitUsage;
    }
    auto agents = make_llm_agents({a.llm, a.llm_config, a.llm_record, a.llm_replay});
    if (!agents) {
        std::cerr << "error: --llm " << a.llm << ": " << agents.error().message << "\n";
        return kExitUsage;
    }
    auto first = kernelbench::write_first_version(**agents, task);
    if (!first) {
        std::cerr << "error: " << first.error().message << "\n";
        return kExitCandidateFailed;
    }
    std::error_code ec;
    auto out = a.out.empty() ? create_unique_directory(fs::path("kernelpro-out") / (task.name + "-" + utc_stamp()))
                             : (fs::create_directories(a.out, ec), Result<fs::path>(fs::path(a.out)));
    if (!out) {
        std::cerr << "error: " << out.error().message << "\n";
        return kExitEnvironment;
    }
    a.out = out->string();
    a.from = (fs::path(a.out) / "first_version.cu").string();
    if (auto w = write_file_atomically(a.from, first->code.source); !w) {
        std::cerr << "error: " << w.error().message << "\n";
        return kExitEnvironment;
    }
    written = std::move(*first);
    return kExitOk;
}

// The pool's throughput and retired GPUs: on stderr, in OUT/summary.md and OUT/gpu_pool.json.
void report_pool(const GpuPool& pool, const fs::path& out_dir) {
    const auto figures = pool.meter().figures();
    std::cerr << "throughput: " << figures.summary() << "\n";
    std::ofstream(out_dir / "summary.md", std::ios::app) << "\n## GPU pool\n\n" << pool.summary_markdown();
    for (const auto& r : pool.retired()) std::cerr << "warning: retired " << r.device.label() << ": " << r.reason << "\n";
    (void)write_file_atomically(out_dir / "gpu_pool.json", pool.to_json().dump(2) + "\n");
}

int optimize(OptimizeArgs a) {
    if (auto policy = search::selection_policies().lookup(a.strategy); !policy) {
        std::cerr << "error: --strategy: " << policy.error().message << "\n";
        return kExitUsage;
    }
    if (!a.profile_tree.empty()) {  // a bad tree is a usage error before anything runs
        auto tree = autoprofiler::choose_tree(a.profile_tree, a.profile_tree_costs);
        if (!tree) {
            std::cerr << "error: --profile-tree: " << tree.error().message << "\n";
            return kExitUsage;
        }
    }
    SearchSession session;
    auto task = load_task(a.task);
    if (!task) {
        std::cerr << task.error().message << "\n";
        return kExitUsage;
    }
    session.task = *task;
    std::optional<kernelbench::FirstVersion> written;
    if (int code = write_first_version_if_needed(a, session.task, written); code != kExitOk) return code;
    auto baseline = load_baseline(a, session.task);
    if (!baseline) {
        std::cerr << "error: " << baseline.error().message << "\n";
        return kExitUsage;
    }
    session.recipe = recipe_from(a, session.task, *baseline);
    auto config = config_from(a, session.recipe.proposers);
    if (!config) {
        std::cerr << "error: " << config.error().message << "\n";
        return kExitUsage;
    }
    session.recipe.evaluation.energy = a.energy || search::objective_of(config->objective).needs_energy;
    // --gpus: one candidate per GPU at once (the round width is stored with the run, so a resume
    // on fewer GPUs grows the same tree, its rounds queued on what it has).
    std::unique_ptr<GpuPool> pool;
    if (!a.gpus.empty()) {
        auto made = make_gpu_pool(a.gpus);
        if (!made) {
            std::cerr << "error: " << made.error().message << "\n";
            return kExitEnvironment;
        }
        pool = std::move(*made);
        session.gpu_pool = pool.get();
        config->parallel_evaluations = static_cast<int>(pool->size());
    }
    auto context = proposer_context(session);
    if (int code = assemble_session(session, context); code != kExitOk) return code;
    auto store = store::RunStore::open(session.recipe.store);
    if (!store) {
        std::cerr << "error: run store " << session.recipe.store << ": " << store.error().message << "\n";
        return kExitEnvironment;
    }
    search::SearchDriver driver(*store, *session.evaluator, *session.proposer);
    std::cerr << fmt::format("optimize {} from {} ({} parameter points), objective {}, {}, {}\n", session.task.name,
                             baseline->path.string(), baseline->points, search::describe_objective(config->objective),
                             describe_stop_limits(config->stop_limits), describe_session(session));
    int code = run_search_session(driver, *store, session, a.quiet, [&] {
        auto outcome = driver.start(context.task, baseline->candidate, *config, session.recipe);
        if (outcome && written) kernelbench::record_writer_exchanges(*store, outcome->run_id, written->exchanges);
        return outcome;
    });
    // The search timed against eager only; the best kernel meets torch.compile too.
    if (code == kExitOk && session.task.reference.pytorch)
        std::cout << kernelbench::time_best_against_baselines(*session.gpu, session.task, session.recipe.out_dir) << "\n";
    if (pool) report_pool(*pool, session.recipe.out_dir);
    return code;
}

}  // namespace

Handler register_optimize(CLI::App& root) {
    auto* cmd = root.add_subcommand("optimize", "Search for a faster kernel (MCTS over proposers: tuner, LLM agents, ...)");
    auto a = std::make_shared<OptimizeArgs>();
    add_options(*cmd, *a);
    return [a]() -> int { return optimize(*a); };
}

}  // namespace kp::cli
