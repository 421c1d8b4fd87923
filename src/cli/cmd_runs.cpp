// kernelpro runs list | show ID | resume ID [--task DIR] [--budget-evals N] [any stop rule flag]
// Reads the run store (default .kernelpro/runs.db in the current folder, or --store PATH).
// Exit codes: 0 success (resume: a correct kernel found), 1 none found, 2 usage, 3 environment.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "cli/search_session.h"
#include "cli/stop_rule_options.h"
#include "optimize/run_settings.h"
#include "search/evaluation_outcome.h"
#include "search/run_recipe.h"
#include "search/stored_run.h"
#include "search/search_config.h"
#include "search/search_driver.h"
#include "store/run_store.h"
#include "task/task_spec.h"
#include "common/utf8.h"

namespace kp::cli {

namespace {

namespace fs = std::filesystem;

struct RunsArgs {
    std::string store, task, out;
    std::int64_t id = 0;
    GivenStopLimits limits;
    std::optional<int> trials;
    std::optional<double> max_time, min_time;
    bool quiet = false, require_sandbox = false, json = false;
};

std::filesystem::path store_path(const std::string& path) {
    std::error_code error;
    return path.empty() ? store::RunStore::default_path(std::filesystem::current_path(error)) : std::filesystem::path(path);
}

bool store_exists(const std::string& path) {
    std::error_code error;
    return std::filesystem::exists(store_path(path), error);
}

// For reading (`list`, `show`): a store in a folder this user cannot write is opened read-only.
Result<store::RunStore> open_store(const std::string& path, bool read_only_fallback = true) {
    std::filesystem::path p = store_path(path);
    if (!store_exists(path)) return make_error("no run store at " + p.string() + " (run `kernelpro optimize` first)");
    auto opened = store::RunStore::open(p);
    if (opened.ok() || !read_only_fallback) return opened;
    auto read_only = store::RunStore::open_read_only(p);
    return read_only.ok() ? std::move(read_only) : std::move(opened);
}

std::string opt(const std::optional<double>& v, const char* f) { return v ? fmt::format(fmt::runtime(f), *v) : "-"; }

// Millijoules per call from a stored outcome, "-" when energy was not measured.
std::string joules_text(const std::string& outcome_json) {
    auto outcome = search::outcome_from_json(outcome_json);
    return outcome.ok() && outcome->joules_per_call ? fmt::format("{:.4g}", *outcome->joules_per_call * 1e3) : "-";
}

int list_runs(const RunsArgs& a) {
    if (!store_exists(a.store)) {  // no store yet: nothing has run here
        std::cout << "(no runs)\n";
        return kExitOk;
    }
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

// The run's recipe and search settings, two or three lines for `runs show`.
std::string describe_recipe(const store::RunRecord& run) {
    std::string text;
    auto config = search::config_from_json(nlohmann::json::parse(run.config_json, nullptr, false));
    if (config)
        text += fmt::format("search: objective {}, strategy {}, seed {}, {}, memory {}, feedback {}\n",
                            search::describe_objective(config->objective), config->strategy, config->seed,
                            describe_stop_limits(config->stop_limits), config->memory_enabled ? "on" : "off",
                            search::feedback_kind_name(config->feedback));
    auto stored = search::recipe_of(run);
    if (!stored) return text + "recipe: unreadable: " + stored.error().message + "\n";
    if (!*stored) return text + "recipe: none (stored before runs kept their recipe)\n";
    const auto& recipe = *stored;
    std::string proposers;
    for (const auto& name : recipe->proposers) proposers += (proposers.empty() ? "" : ",") + name;
    text += fmt::format("recipe: task {} (given as {}), from {}, proposers {}, profile {}, trials {}, timing {}..{} s, energy {}\n",
                        recipe->task_path, recipe->task_given, recipe->baseline_path.empty() ? "-" : recipe->baseline_path,
                        proposers, !recipe->profile.enabled ? "off" : recipe->profile.tree.empty() ? "on" : "on (tree " + recipe->profile.tree + ")",
                        recipe->evaluation.trials,
                        recipe->evaluation.min_time, recipe->evaluation.max_time,
                        recipe->evaluation.energy ? fmt::format("{} windows", recipe->evaluation.energy_windows) : "off");
    if (recipe->llm.settings.is_object())
        text += fmt::format("llm: {}{}\n", recipe->llm.settings.value("spec", "?"),
                            recipe->llm.settings.value("base_url", "").empty() ? ""
                                                                                : " at " + recipe->llm.settings.value("base_url", ""));
    return text + fmt::format("out {}, store {}, started in {}\n", recipe->out_dir, recipe->store, recipe->working_directory);
}

// A run's nodes, each with its evaluation (none while pending): what `runs show` prints either way.
struct RunRows {
    std::vector<store::NodeRecord> nodes;
    std::vector<store::EvaluationRecord> evaluations;
    std::map<std::int64_t, size_t> by_node;  // node id -> index in evaluations
    const store::EvaluationRecord* evaluation_of(const store::NodeRecord& n) const {
        auto it = by_node.find(n.node_id);
        return it == by_node.end() ? nullptr : &evaluations[it->second];
    }
};

Result<RunRows> load_run_rows(store::RunStore& st, std::int64_t run_id) {
    auto nodes = st.load_nodes(run_id);
    if (!nodes.ok()) return nodes.error();
    auto evaluations = st.load_evaluations(run_id);
    if (!evaluations.ok()) return evaluations.error();
    RunRows rows{std::move(*nodes), std::move(*evaluations), {}};
    for (size_t i = 0; i < rows.evaluations.size(); ++i) rows.by_node[rows.evaluations[i].node_id] = i;
    return rows;
}

// `runs show --json` (schema kernelpro.run/1): the run, its recipe, and every node with its
// evaluation. What a program reads, e.g. an exhaustive run kept as a tuning table (docs/autoprofiler.md).
int show_run_json(store::RunStore& st, const store::RunSummary& r) {
    auto loaded = load_run_rows(st, r.run.id);
    if (!loaded.ok()) {
        std::cerr << "error: " << loaded.error().message << "\n";
        return kExitEnvironment;
    }
    auto number = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    nlohmann::json out = {{"schema", "kernelpro.run/1"},
                          {"id", r.run.id},
                          {"task", r.run.task_name},
                          {"task_fingerprint", r.run.task_fingerprint},
                          {"status", store::run_status_name(r.run.status)},
                          {"stop_reason", r.run.stop_reason},
                          {"elapsed_seconds", r.run.elapsed_seconds},
                          {"best_speedup", number(r.best_speedup)}};
    if (auto recipe = search::recipe_of(r.run); recipe && *recipe) out["recipe"] = search::recipe_to_json(**recipe);
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& n : loaded->nodes) {
        const store::EvaluationRecord* e = loaded->evaluation_of(n);
        nlohmann::json params = nlohmann::json::object();
        if (auto parsed = search::params_from_json(n.params_json); parsed.ok())
            for (const auto& [k, v] : *parsed) params[k] = v;
        rows.push_back({{"node", n.node_id},
                        {"parent", n.parent_id ? nlohmann::json(*n.parent_id) : nlohmann::json(nullptr)},
                        {"origin", n.proposal_kind},
                        {"status", e ? e->status_class : "pending"},
                        {"median_seconds", e ? number(e->median_seconds) : nlohmann::json(nullptr)},
                        {"speedup", e ? number(e->speedup) : nlohmann::json(nullptr)},
                        {"roofline_fraction", e ? number(e->roofline_fraction) : nlohmann::json(nullptr)},
                        {"params", params},
                        {"rationale", valid_utf8(n.rationale)},
                        // The evaluation as the search stored it (its findings, compiler facts, roofline class).
                        {"outcome", e ? nlohmann::json::parse(e->outcome_json, nullptr, false) : nlohmann::json(nullptr)}});
        if (rows.back()["outcome"].is_discarded()) rows.back()["outcome"] = nullptr;
    }
    out["nodes"] = std::move(rows);
    std::cout << out.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";  // stored bytes need not be UTF-8
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
    if (a.json) return show_run_json(*st, r);
    std::cout << fmt::format("run {}: task {}, {} ({}), {} nodes, {} evaluations, {} pending, {:.1f} s, best {}\n", r.run.id,
                             r.run.task_name, store::run_status_name(r.run.status), r.run.stop_reason, r.nodes,
                             r.evaluations, r.pending_nodes, r.run.elapsed_seconds, opt(r.best_speedup, "{:.3f}x"));
    if (r.tokens > 0) std::cout << fmt::format("LLM: {} tokens, ${:.4f}\n", r.tokens, r.cost_usd);
    std::cout << describe_recipe(r.run);
    auto loaded = load_run_rows(*st, a.id);
    if (!loaded.ok()) {
        std::cerr << "error: " << loaded.error().message << "\n";
        return kExitEnvironment;
    }
    std::cout << fmt::format("{:>5} {:>6} {:<15} {:<15} {:>10} {:>9} {:>9} {:>7} {:>7}  {} | {}\n", "node", "parent", "origin",
                             "status", "median_us", "speedup", "mJ/call", "%floor", "reward", "parameters", "rationale");
    for (const auto& n : loaded->nodes) {
        const store::EvaluationRecord* e = loaded->evaluation_of(n);
        std::string params;
        auto parsed = search::params_from_json(n.params_json);
        if (parsed.ok())
            for (const auto& [k, v] : *parsed) params += (params.empty() ? "" : ",") + k + "=" + v;
        std::cout << fmt::format(
            "{:>5} {:>6} {:<15} {:<15} {:>10} {:>9} {:>9} {:>7} {:>7}  {} | {}{}\n", n.node_id,
            n.parent_id ? std::to_string(*n.parent_id) : "-", n.proposal_kind, e ? e->status_class : "pending",
            e && e->median_seconds ? fmt::format("{:.2f}", *e->median_seconds * 1e6) : "-",
            e ? opt(e->speedup, "{:.3f}x") : "-", e ? joules_text(e->outcome_json) : "-",
            e && e->roofline_fraction ? fmt::format("{:.1f}", 100 * *e->roofline_fraction) : "-",
            e ? fmt::format("{:.3f}", e->reward) : "-", params.empty() ? "-" : params, n.rationale,
            n.close_reason.empty() ? "" : " [closed: " + n.close_reason + "]");
    }
    return kExitOk;
}

// The recipe a run was stored with; a run from before recipes (schema version 3) gets the one
// resume always used for them: the tuner, tasks/<name>, kernelpro-out/<task>-run<id>.
Result<search::RunRecipe> stored_recipe(const store::RunRecord& run, const std::string& store_path) {
    auto stored = search::recipe_of(run);
    if (!stored) return stored.error();
    if (*stored) return **stored;
    std::cerr << fmt::format("note: run {} was stored before runs kept their recipe: resuming it with the tuner\n", run.id);
    search::RunRecipe recipe;
    recipe.task_given = (fs::path("tasks") / run.task_name).string();
    recipe.task_path = fs::absolute(recipe.task_given).string();
    recipe.out_dir = fs::absolute(fs::path("kernelpro-out") / fmt::format("{}-run{}", run.task_name, run.id)).string();
    recipe.store = fs::absolute(store_path).string();
    return recipe;
}

// --task, --out and the evaluation flags replace the stored ones, for this and later sessions; so
// does the store's path, wherever the store now is.
bool apply_overrides(const RunsArgs& a, const fs::path& store_path, search::RunRecipe& recipe) {
    const auto before = search::recipe_to_json(recipe);
    recipe.store = fs::absolute(store_path).lexically_normal().string();
    if (!a.task.empty()) recipe.task_path = fs::absolute(a.task).lexically_normal().string();
    if (!a.out.empty()) recipe.out_dir = fs::absolute(a.out).lexically_normal().string();
    if (a.trials) recipe.evaluation.trials = *a.trials;
    if (a.max_time) recipe.evaluation.max_time = *a.max_time;
    if (a.min_time) recipe.evaluation.min_time = *a.min_time;
    if (a.require_sandbox) recipe.evaluation.require_sandbox = true;
    return search::recipe_to_json(recipe) != before;
}

// The run's task, found where the recipe says, and still the task the run optimized.
Result<TaskSpec> load_run_task(const store::RunRecord& run, const search::RunRecipe& recipe) {
    auto task = load_task(recipe.task_path);
    if (!task)
        return make_error(fmt::format("run {}'s task {} (given as {}): {}\n(pass the task folder with --task)", run.id,
                                      recipe.task_path, recipe.task_given, task.error().message));
    if (task->name != run.task_name || optimize::task_fingerprint(*task) != run.task_fingerprint)
        return make_error(fmt::format("run {} optimized task {} as it was then; {} is another task or has changed since",
                                      run.id, run.task_name, recipe.task_path));
    return task;
}

int resume_run(const RunsArgs& a) {
    auto st = open_store(a.store, false);
    if (!st.ok()) {
        std::cerr << "error: " << st.error().message << "\n";
        return kExitEnvironment;
    }
    auto run = st->load_run(a.id);
    if (!run.ok()) {
        std::cerr << "error: " << run.error().message << "\n";
        return kExitUsage;
    }
    auto changes = given_limit_changes(a.limits);
    const fs::path store_path = a.store.empty() ? store::RunStore::default_path(fs::current_path()) : fs::path(a.store);
    auto recipe = stored_recipe(*run, store_path.string());
    if (!changes.ok() || !recipe.ok()) {
        std::cerr << "error: " << (changes.ok() ? recipe.error().message : changes.error().message) << "\n";
        return changes.ok() ? kExitEnvironment : kExitUsage;
    }
    SearchSession session;
    session.recipe = *recipe;
    const bool changed = apply_overrides(a, store_path, session.recipe);
    auto task = load_run_task(*run, session.recipe);
    if (!task.ok()) {
        std::cerr << "error: " << task.error().message << "\n";
        return kExitUsage;
    }
    session.task = *task;
    auto context = proposer_context(session);
    auto served = search::served_llm_purposes(*st, a.id);
    if (!served) {
        std::cerr << "error: " << served.error().message << "\n";
        return kExitEnvironment;
    }
    context.served_llm_purposes = *served;
    if (int code = assemble_session(session, context); code != kExitOk) {
        if (code == kExitEnvironment) std::cerr << fmt::format("(run {} needs it to resume as it started)\n", a.id);
        return code;
    }
    if (changed) (void)st->update_run_recipe(a.id, dump_json(search::recipe_to_json(session.recipe)));
    search::SearchDriver driver(*st, *session.evaluator, *session.proposer);
    std::cerr << fmt::format("resuming run {} ({}): {}\n", a.id, run->task_name, describe_session(session));
    search::ResumeOptions resume{*changes};
    return run_search_session(driver, *st, session, a.quiet, [&] { return driver.resume(a.id, resume); });
}
}  // namespace

Handler register_runs(CLI::App& root) {
    auto* cmd = root.add_subcommand("runs", "List, inspect and resume optimization runs in the run store");
    cmd->require_subcommand(1);
    auto a = std::make_shared<RunsArgs>();
    cmd->add_option("--store", a->store, "Run store (default: .kernelpro/runs.db in the current folder)");
    auto* list = cmd->add_subcommand("list", "All runs, newest first");
    // --store may come after the subcommand too (`runs list --store X`, like `optimize --store X`).
    list->fallthrough();
    auto* show = cmd->add_subcommand("show", "One run's nodes and evaluations");
    show->fallthrough();
    show->add_option("id", a->id, "Run id")->required();
    show->add_flag("--json", a->json, "Print the run and its nodes as JSON (schema kernelpro.run/1)");
    auto* resume = cmd->add_subcommand(
        "resume", "Continue a run as it started (its proposers, LLM, profile, output folder), after Ctrl-C, a crash or a spent budget");
    resume->fallthrough();
    resume->add_option("id", a->id, "Run id")->required();
    resume->add_option("--task", a->task, "Task folder, if it moved (default: where the run found it)");
    resume->add_option("--out", a->out, "Output folder (default: the run's own)");
    add_stop_rule_options(*resume, a->limits, /*with_defaults=*/false);
    resume->add_option("--trials", a->trials, "Correctness trials per candidate (default: the run's)")->check(CLI::Range(1, 100));
    resume->add_option("--max-time", a->max_time, "Timing cap per candidate, seconds (default: the run's)")->check(finite_at_least(0));
    resume->add_option("--min-time", a->min_time, "Measured time needed per candidate, seconds (default: the run's)")->check(finite_at_least(0));
    resume->add_flag("-q,--quiet", a->quiet, "No progress line");
    resume->add_flag("--require-sandbox", a->require_sandbox,
                     "Refuse (exit 3) unless every sandbox layer is active (a run started with it keeps it)");
    return [a, list, show, resume]() -> int {
        if (list->parsed()) return list_runs(*a);
        if (show->parsed()) return show_run(*a);
        if (resume->parsed()) return resume_run(*a);
        return kExitUsage;
    };
}

}  // namespace kp::cli
