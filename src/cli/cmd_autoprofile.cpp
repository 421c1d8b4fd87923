// kernelpro autoprofile catalogue | costs | eval | learn | compare: the profiling tree (issue 13,
// docs/autoprofiler.md). eval/learn/compare read a labelled corpus (manifest.toml, --tasks) and
// its recorded counters (--recordings), and/or tuning kernels (--tuning MANIFEST: recorded
// counters and timed kp:tune spaces, for the tuner-outcome objective): the kernels are built and
// disassembled here, the counters replayed, so no GPU is needed (but for --objective rewrite
// --judge gpu, which evaluates each LLM rewrite on the GPU). Exit codes: 0 done, 2 usage or input error, 3 environment (no nvcc).
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "autoprofiler/catalogue.h"
#include "autoprofiler/comparison.h"
#include "autoprofiler/learning_run.h"
#include "autoprofiler/named_trees.h"
#include "autoprofiler/single_shot_rewrite.h"
#include "autoprofiler/tuner_outcome.h"
#include "autoprofiler/tuning_record.h"
#include "cli/commands.h"
#include "cli/llm_option.h"
#include "optimize/gpu_rewrite_judge.h"

namespace kp::cli {

namespace {

namespace fs = std::filesystem;
namespace ap = kp::autoprofiler;

struct AutoprofileArgs {
    std::vector<std::string> tasks, trees;
    std::string recordings, costs = "h200", gpu = "h200", out, store, tree = "full", tuning, objective = "hit_rate";
    double budget_seconds = 0;
    int budget_passes = 0, hold_out_every = 4, max_rounds = 12, tuner_evals = 4;
    std::string start;
    LlmOptionValues llm;
    bool no_enumerative = false;
    // --objective rewrite: the writer's LLM, who judges its rewrites, and where verdicts are kept.
    LlmOptionValues writer;
    std::string judge = "recorded", verdicts, judge_out = "autoprofile-rewrites";
};

ap::Budget budget_of(const AutoprofileArgs& a) {
    ap::Budget b;
    if (a.budget_seconds > 0) b.seconds = a.budget_seconds;
    if (a.budget_passes > 0) b.passes = a.budget_passes;
    return b;
}

using Split = std::pair<std::vector<ap::KernelRecord>, std::vector<ap::KernelRecord>>;

// The labelled kernels of every --tasks folder, split into training and held-out ones (none
// without --tasks).
Result<Split> corpus(const AutoprofileArgs& a) {
    Split out;
    if (a.tasks.empty()) return out;
    if (a.recordings.empty()) return make_error("--recordings DIR (the corpus's recorded <kernel>.counters.json) is required with --tasks");
    std::vector<ap::KernelRecord> all;
    for (const auto& dir : a.tasks) {
        if (!fs::exists(fs::path(dir) / "manifest.toml")) return make_error("--tasks " + dir + ": no manifest.toml there");
        auto records = ap::load_corpus_records({dir, a.recordings, {}});
        if (!records) return records.error();
        all.insert(all.end(), records->begin(), records->end());
    }
    ap::split_records(all, a.hold_out_every, out.first, out.second);
    return out;
}

// The --tuning manifest's kernels (none without it).
Result<std::vector<ap::KernelRecord>> tuning_kernels(const AutoprofileArgs& a) {
    if (a.tuning.empty()) return std::vector<ap::KernelRecord>{};
    if (!fs::is_regular_file(a.tuning)) return make_error("--tuning " + a.tuning + ": not a file (a tuning manifest, e.g. tests/fixtures/h200-tuning/manifest.toml)");
    return ap::load_tuning_records(a.tuning);
}

// The single-shot-rewrite objective: the writer from --writer-llm, the judge on the GPU (recording
// every verdict to --verdicts) or replaying --verdicts.
Result<std::unique_ptr<ap::SingleShotRewrite>> rewrite_objective(const AutoprofileArgs& a) {
    if (a.writer.spec.empty()) return make_error("--objective rewrite needs --writer-llm PROVIDER:MODEL or script:FILE.jsonl (role \"coder\")");
    if (a.verdicts.empty()) return make_error("--objective rewrite needs --verdicts FILE (recorded with --judge gpu, replayed otherwise)");
    auto agents = make_llm_agents(a.writer);
    if (!agents) return agents.error();
    std::shared_ptr<ap::RewriteJudge> judge;
    if (a.judge == "gpu") {
        judge = ap::recording_rewrite_judge(std::make_shared<optimize::GpuRewriteJudge>(a.judge_out), a.verdicts);
    } else {
        auto recorded = ap::recorded_rewrite_judge(a.verdicts);
        if (!recorded) return recorded.error();
        judge = std::move(*recorded);
    }
    return std::make_unique<ap::SingleShotRewrite>(std::move(*agents), std::move(judge));
}

Result<std::unique_ptr<ap::Objective>> objective_of(const AutoprofileArgs& a) {
    if (a.objective == "hit_rate") return ap::diagnosis_hit_rate();
    if (a.objective == "tuner") return ap::tuner_outcome(a.tuner_evals);
    if (a.objective == "rewrite") {
        auto rewrite = rewrite_objective(a);
        if (!rewrite) return rewrite.error();
        return std::unique_ptr<ap::Objective>(std::move(*rewrite));
    }
    return make_error("--objective " + a.objective + ": expected hit_rate, tuner or rewrite");
}

// The tools of the findings a walk shows, comma-separated.
std::string shown_tools(const ap::TreeOutcome& o) {
    std::string shown;
    for (const auto& f : o.findings) shown += (shown.empty() ? "" : ",") + f.tool;
    return shown;
}

int fail(const std::string& message, int code = kExitUsage) {
    std::cerr << "error: " << message << "\n";
    return code;
}

int run_catalogue(const AutoprofileArgs& a) {
    auto costs = ap::resolve_cost_table(a.costs);
    if (!costs) return fail(costs.error().message);
    std::cout << "Signals (tested by internal nodes):\n";
    for (const auto& s : ap::signal_catalogue())
        std::cout << fmt::format("  {:<32} {:<18} {}\n", s.name, s.needs.empty() ? "(static)" : s.needs, s.description);
    std::cout << fmt::format("\nOn {}{}: the worker's start {:.3f} s, each counter collection {:.3f} s, {:.4f} s per replay pass "
                             "(a collection's passes: {})\n",
                             costs->gpu, costs->chip.empty() ? "" : " (" + costs->chip + ")", costs->process_seconds, costs->collection_seconds,
                             costs->seconds_per_pass, costs->chip.empty() ? "its actions' added" : "CUPTI's plan for its counters");
    std::cout << "Actions alone (a tool's passes beyond the roofline's):\n";
    for (const auto& act : ap::action_catalogue())
        std::cout << fmt::format("  {:<40} {:>7.3f} s {:>3} passes\n", act, costs->of(act).seconds, costs->of(act).passes);
    return kExitOk;
}

int run_costs(const AutoprofileArgs& a) {
    if (a.recordings.empty()) return fail("--recordings DIR is required");
    std::vector<fs::path> replies;
    for (const auto& e : fs::directory_iterator(a.recordings))
        if (e.path().string().ends_with(".counters.json")) replies.push_back(e.path());
    std::sort(replies.begin(), replies.end());
    auto table = ap::seed_cost_table(replies, a.gpu);
    if (!table) return fail(table.error().message);
    if (a.out.empty()) {
        std::cout << ap::to_toml(*table);
    } else {
        std::ofstream(a.out) << ap::to_toml(*table);
        std::cerr << "wrote " << a.out << "\n";
    }
    return kExitOk;
}

int run_eval(const AutoprofileArgs& a) {
    auto tree = ap::resolve_tree(a.tree);
    if (!tree) return fail(tree.error().message);
    auto costs = ap::resolve_cost_table(a.costs);
    if (!costs) return fail(costs.error().message);
    auto kernels = corpus(a);
    if (!kernels) return fail(kernels.error().message);
    auto tuning = tuning_kernels(a);
    if (!tuning) return fail(tuning.error().message);
    if (kernels->first.empty() && kernels->second.empty() && tuning->empty()) return fail("give --tasks DIR --recordings DIR, or --tuning MANIFEST");
    const auto budget = budget_of(a);
    if (!tuning->empty() && a.objective == "rewrite") {
        auto rewrite = rewrite_objective(a);
        if (!rewrite) return fail(rewrite.error().message);
        std::vector<ap::TreeOutcome> outcomes;
        for (const auto& k : *tuning) {
            const auto& o = outcomes.emplace_back(ap::evaluate_tree(*tree, k, *costs, budget));
            auto r = (*rewrite)->rewrite(k, o.feedback);
            if (!r) return fail(r.error().message, kExitEnvironment);
            std::cout << fmt::format("rewrite   {:<28} {:>6.3f}x {:<9} leaf {:<14} {:>5.2f} s {:>2} passes  shown [{}]{}\n", k.name, r->speedup,
                                     r->correct ? "correct" : "failed", o.leaf, o.cost.seconds, o.cost.passes, shown_tools(o),
                                     r->message.empty() ? "" : "  (" + r->message + ")");
        }
        auto s = (*rewrite)->score(*tuning, outcomes, budget);
        if (!s.error.empty()) return fail(s.error, kExitEnvironment);
        std::cout << fmt::format("rewrite: geometric-mean speedup of one rewrite {:.3f}x ({} kernels, {} correct, {} LLM calls), mean {:.3f} s, "
                                 "{:.2f} passes, objective {:.4f}\n\n",
                                 s.tuner_speedup, s.tuned, s.rewritten, (*rewrite)->llm_calls(), s.mean_seconds, s.mean_passes, s.value);
    } else if (!tuning->empty()) {
        auto objective = ap::tuner_outcome(a.tuner_evals);
        std::vector<ap::TreeOutcome> outcomes;
        for (const auto& k : *tuning) {
            const auto& o = outcomes.emplace_back(ap::evaluate_tree(*tree, k, *costs, budget, false));
            const auto run = ap::simulate_tuner(k, o.findings, a.tuner_evals);
            std::string tried;
            for (const auto& p : run.tried) tried += (tried.empty() ? "" : "; ") + p;
            std::cout << fmt::format("tuning    {:<28} {:>6.3f}x leaf {:<14} {:>5.2f} s {:>2} passes  best {}  shown [{}]  tried {}\n", k.name,
                                     run.speedup(), o.leaf, o.cost.seconds, o.cost.passes, run.best_point, shown_tools(o), tried);
        }
        auto s = objective->score(*tuning, outcomes, budget);
        std::cout << fmt::format("tuning: the tuner's geometric-mean speedup in {} evaluations {:.3f}x ({} kernels), mean {:.3f} s, {:.2f} passes, "
                                 "objective {:.4f}\n\n",
                                 a.tuner_evals, s.tuner_speedup, s.tuned, s.mean_seconds, s.mean_passes, s.value);
    }
    auto objective = ap::diagnosis_hit_rate();
    for (const auto& [set, list] : {std::pair{"train", &kernels->first}, std::pair{"held-out", &kernels->second}}) {
        if (list->empty()) continue;
        std::vector<ap::TreeOutcome> outcomes;
        for (const auto& k : *list) {
            const auto& o = outcomes.emplace_back(ap::evaluate_tree(*tree, k, *costs, budget, false));
            std::cout << fmt::format("{:<9} {:<28} {:<4} leaf {:<14} {:>5.2f} s {:>2} passes  expect {:<28} shown [{}]\n", set, k.name,
                                     ap::is_hit(k, o) ? "HIT" : "miss", o.leaf, o.cost.seconds, o.cost.passes, k.expect, shown_tools(o));
        }
        auto s = objective->score(*list, outcomes, budget);
        std::cout << fmt::format("{}: hit rate {:.3f} ({}/{}), mean {:.3f} s, {:.2f} passes, objective {:.4f}\n\n", set, s.hit_rate, s.hits,
                                 s.kernels, s.mean_seconds, s.mean_passes, s.value);
    }
    return kExitOk;
}

int run_learn(const AutoprofileArgs& a) {
    if (a.out.empty()) return fail("--out tree.toml is required");
    if (a.budget_seconds <= 0 && a.budget_passes <= 0) return fail("a budget is required: --budget-seconds S or --budget-passes P");
    auto costs = ap::resolve_cost_table(a.costs);
    if (!costs) return fail(costs.error().message);
    std::unique_ptr<ap::Proposer> llm, enumerative;
    std::vector<ap::Proposer*> proposers;
    if (!a.llm.spec.empty()) {
        auto client = make_llm_client(a.llm);
        if (!client) return fail(client.error().message);
        llm = ap::llm_proposer(*client);
        proposers.push_back(llm.get());
    }
    if (!a.no_enumerative) {
        enumerative = ap::enumerative_proposer();
        proposers.push_back(enumerative.get());
    }
    if (proposers.empty()) return fail("--no-enumerative needs --llm");
    auto objective = objective_of(a);
    if (!objective) return fail(objective.error().message);
    Split kernels;  // the tuner learns on the tuning kernels, the hit rate on the labelled corpus; split alike
    if (a.objective == "tuner" || a.objective == "rewrite") {
        auto tuning = tuning_kernels(a);
        if (!tuning) return fail(tuning.error().message);
        if (tuning->empty()) return fail("--objective " + a.objective + " needs --tuning MANIFEST");
        ap::split_records(*tuning, a.hold_out_every, kernels.first, kernels.second);
    } else {
        auto labelled = corpus(a);
        if (!labelled) return fail(labelled.error().message);
        if (labelled->first.empty()) return fail("--tasks DIR (a labelled corpus with manifest.toml) is required");
        kernels = std::move(*labelled);
    }
    const fs::path store = a.store.empty() ? fs::path(a.out + ".learn.db") : fs::path(a.store);
    auto log = ap::LearningLog::open(store);
    if (!log) return fail(store.string() + ": " + log.error().message, kExitEnvironment);
    ap::LearningSettings settings;
    settings.budget = budget_of(a);
    settings.max_rounds = a.max_rounds;
    settings.start_actions = a.start;
    auto result = ap::learn_tree(kernels.first, kernels.second, *costs, **objective, proposers, settings, *log, fs::absolute(a.out).string(), -1,
                                 [](const std::string& line) { std::cerr << line << "\n"; });
    if (!result) return fail(result.error().message);
    std::ofstream(a.out) << ap::to_toml(result->tree);
    std::cout << fmt::format("learned {} ({} rounds{}, {} proposals, {} accepted; log {})\n", a.out, result->rounds,
                             result->resumed_from_round ? fmt::format(", resumed after round {}", result->resumed_from_round) : "",
                             result->proposals, result->accepted, store.string());
    for (const auto& [set, score] : {std::pair{"train:   ", &result->train}, std::pair{"held-out:", &result->held_out}}) {
        const std::string outcome = a.objective == "tuner"     ? fmt::format("tuner {:.3f}x ({} kernels)", score->tuner_speedup, score->tuned)
                                    : a.objective == "rewrite" ? fmt::format("one rewrite {:.3f}x ({} kernels, {} correct)", score->tuner_speedup,
                                                                             score->tuned, score->rewritten)
                                                               : fmt::format("hit rate {:.3f} ({}/{})", score->hit_rate, score->hits, score->kernels);
        std::cout << fmt::format("{} {}, {:.3f} s, {:.2f} passes\n", set, outcome, score->mean_seconds, score->mean_passes);
    }
    return kExitOk;
}

int run_compare(const AutoprofileArgs& a) {
    auto costs = ap::resolve_cost_table(a.costs);
    if (!costs) return fail(costs.error().message);
    auto named = ap::named_trees();
    if (!named) return fail(named.error().message, kExitEnvironment);
    std::vector<std::pair<std::string, ap::ProfilingTree>> trees = std::move(*named);
    for (const auto& file : a.trees) {
        auto t = ap::resolve_tree(file);
        if (!t) return fail(t.error().message);
        trees.emplace_back(fs::path(file).stem().string(), std::move(*t));
    }
    auto kernels = corpus(a);
    if (!kernels) return fail(kernels.error().message);
    auto tuning = tuning_kernels(a);
    if (!tuning) return fail(tuning.error().message);
    if (kernels->first.empty() && kernels->second.empty() && tuning->empty()) return fail("give --tasks DIR --recordings DIR, or --tuning MANIFEST");
    std::cout << ap::render_comparison(
        ap::compare_trees(trees, kernels->first, kernels->second, *costs, ap::standard_budgets(), *tuning, a.tuner_evals));
    return kExitOk;
}

void corpus_options(CLI::App* cmd, AutoprofileArgs& a) {
    cmd->add_option("--tasks", a.tasks, "Labelled corpus folder(s) holding manifest.toml (e.g. tests/profile_corpus)")->expected(1, -1);
    cmd->add_option("--recordings", a.recordings, "Recorded counters of the corpus (<kernel>.counters.json, ceilings.json)");
    cmd->add_option("--hold-out-every", a.hold_out_every, "Every N-th kernel (manifest order) is held out for validation; 0: none")
        ->capture_default_str();
    cmd->add_option("--costs", a.costs, "Cost table: a GPU name (share/kernelpro/autoprofiler/costs/NAME.toml) or a file")->capture_default_str();
    cmd->add_option("--tuning", a.tuning,
                    "Tuning kernels: a manifest of kp:tune start points with recorded counters and timed spaces (e.g. tests/fixtures/h200-tuning/manifest.toml)");
    cmd->add_option("--tuner-evals", a.tuner_evals, "Evaluations the simulated tuner gets after the profiled start (tuner outcome)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    cmd->add_option("--writer-llm", a.writer.spec, "--objective rewrite: the LLM that rewrites each tuning kernel once, PROVIDER:MODEL or script:FILE.jsonl");
    cmd->add_option("--writer-llm-replay", a.writer.replay, "Replay the writer's recorded exchanges from this file");
    cmd->add_option("--writer-llm-record", a.writer.record, "Record the writer's exchanges to this file");
    cmd->add_option("--judge", a.judge, "--objective rewrite: gpu (evaluate each rewrite now, appending its verdict to --verdicts) or recorded (replay --verdicts)")
        ->check(CLI::IsMember({"gpu", "recorded"}))
        ->capture_default_str();
    cmd->add_option("--verdicts", a.verdicts, "--objective rewrite: the rewrites' verdicts (JSONL), written by --judge gpu");
    cmd->add_option("--judge-out", a.judge_out, "--judge gpu: where the rewrites and their evaluation reports go")->capture_default_str();
}

void budget_options(CLI::App* cmd, AutoprofileArgs& a) {
    cmd->add_option("--budget-seconds", a.budget_seconds, "Profiling budget per kernel, seconds");
    cmd->add_option("--budget-passes", a.budget_passes, "Profiling budget per kernel, replay passes");
}

}  // namespace

Handler register_autoprofile(CLI::App& root) {
    auto* cmd = root.add_subcommand("autoprofile", "Profiling trees: what to profile for each kernel within a budget (docs/autoprofiler.md)");
    cmd->require_subcommand(1);
    auto a = std::make_shared<AutoprofileArgs>();
    auto* catalogue = cmd->add_subcommand("catalogue", "List the signals a tree may test and the actions with their costs");
    catalogue->add_option("--costs", a->costs, "Cost table: a GPU name or a file")->capture_default_str();
    auto* costs = cmd->add_subcommand("costs", "Seed a GPU's cost table from recorded CUPTI counter replies");
    costs->add_option("--recordings", a->recordings, "Folder of <kernel>.counters.json")->required();
    costs->add_option("--gpu", a->gpu, "GPU name written into the table")->capture_default_str();
    costs->add_option("--out", a->out, "Write the table here (default: stdout)");
    auto* eval = cmd->add_subcommand("eval", "Evaluate one tree on the recorded corpus: each kernel's leaf, cost, findings and hit");
    eval->add_option("--tree", a->tree, "Tree file, or none | roofline | full | ncu-set-full")->capture_default_str();
    eval->add_option("--objective", a->objective, "For the --tuning kernels: tuner (default) or rewrite (one LLM rewrite each, --writer-llm)")
        ->check(CLI::IsMember({"hit_rate", "tuner", "rewrite"}));
    corpus_options(eval, *a);
    budget_options(eval, *a);
    auto* learn = cmd->add_subcommand("learn", "Learn a tree by REWRITE/SPLIT edits on the recorded corpus (resumes an interrupted run)");
    corpus_options(learn, *a);
    budget_options(learn, *a);
    learn->add_option("--out", a->out, "Where to write the learned tree (TOML)");
    learn->add_option("--store", a->store, "Learning log: a run store (default OUT.learn.db; may be the one optimize writes) holding every proposal, score and decision");
    learn->add_option("--objective", a->objective,
                      "What the learner maximises: hit_rate (the labelled --tasks corpus), tuner (the --tuning kernels) or rewrite (one LLM "
                      "rewrite of each --tuning kernel, --writer-llm)")
        ->check(CLI::IsMember({"hit_rate", "tuner", "rewrite"}))
        ->capture_default_str();
    learn->add_option("--max-rounds", a->max_rounds, "Stop after this many rounds")->capture_default_str();
    learn->add_option("--start", a->start, "Actions of the one-leaf start tree, comma-separated, or `all` (today's full plan; default: none)");
    learn->add_option("--llm", a->llm.spec, "Also ask an LLM for edits: PROVIDER:MODEL or script:FILE.jsonl (role \"autoprofiler\")");
    learn->add_option("--llm-replay", a->llm.replay, "Replay the LLM's recorded exchanges from this file");
    learn->add_option("--llm-record", a->llm.record, "Record the LLM's exchanges to this file");
    learn->add_flag("--no-enumerative", a->no_enumerative, "Only the LLM proposes");
    auto* compare = cmd->add_subcommand("compare", "Compare trees (none, roofline, full, ncu-set-full and --tree files) at three budgets");
    compare->add_option("--tree", a->trees, "Learned tree file(s) to add to the comparison");
    corpus_options(compare, *a);
    return [=]() {
        if (*catalogue) return run_catalogue(*a);
        if (*costs) return run_costs(*a);
        if (*eval) return run_eval(*a);
        if (*learn) return run_learn(*a);
        return run_compare(*a);
    };
}

}  // namespace kp::cli
