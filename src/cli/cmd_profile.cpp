// kernelpro profile TASK CANDIDATE.cu [--json | --feedback] [--tools a,b] [--collectors ncu,sass,...]
// kernelpro profile --list-tools | --list-collectors
// Builds the candidate, collects counters (in the worker through CUPTI, or with ncu), classifies each
// kernel on the roofline, runs its class's tools and prints the ranked findings. Exit codes: 0 profiled,
// 1 the candidate failed to build, 2 usage or task error,
// 3 environment (no GPU / no ncu: the SASS/ptxas-only findings are still shown).
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "analysis/feedback.h"
#include "analysis/tool_list.h"
#include "autoprofiler/profile_walk.h"
#include "analysis/tool_registry.h"
#include "build/candidate_builder.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "diagnose/profile_candidate.h"
#include "task/task_spec.h"
#include "common/utf8.h"

namespace kp::cli {

namespace {
struct ProfileArgs {
    std::string task, candidate, ncu, request_file, counters_file, ncu_csv, ceilings;
    std::vector<std::string> params, tools, collectors;
    std::string stages = "auto", counters = "auto";
    std::string tree, tree_costs = "h200";  // --tree: a profiling tree picks what the feedback shows
    bool json = false, feedback = false, list_tools = false, list_collectors = false, quiet = false, no_cache = false;
    double budget_seconds = 120.0;
    int budget_passes = 40;
};

std::vector<std::string> split_commas(const std::vector<std::string>& values) {
    std::vector<std::string> out;
    for (const auto& v : values) {
        std::stringstream in(v);
        std::string item;
        while (std::getline(in, item, ','))
            if (!item.empty()) out.push_back(item);
    }
    return out;
}

// The worker's counters reply the profile reads or writes: a recorded one (--ncu-csv REPLY.json),
// else --keep-counters; "" when neither.
std::string counters_reply(const ProfileArgs& a) { return a.ncu_csv.ends_with(".json") ? a.ncu_csv : a.counters_file; }

// The options the command line asks for; a usage error names what is wrong. `tree`: --tree's, chosen.
Result<diagnose::ProfileOptions> profile_options(const ProfileArgs& a, const autoprofiler::TreeChoice* tree) {
    diagnose::ProfileOptions options;
    options.ncu_path = a.ncu;
    options.request_file = a.request_file;
    options.counters_reply_file = a.counters_file;
    options.tools = split_commas(a.tools);
    for (const auto& t : options.tools)
        if (!analysis::default_tool_registry().find(t)) return make_error("unknown tool '" + t + "' (see kernelpro profile --list-tools)");
    auto collectors = diagnose::default_collector_registry().apply_list(split_commas(a.collectors), options.collectors);
    if (!collectors) return collectors.error();
    options.collectors = collectors->enabled;
    options.named_collectors = collectors->named;
    options.stages = a.stages == "1" ? analysis::StagePlan::one_run : a.stages == "2" ? analysis::StagePlan::two_runs : analysis::StagePlan::automatic;
    options.counters = a.counters == "cupti" ? diagnose::CounterSource::cupti
                     : a.counters == "ncu"   ? diagnose::CounterSource::ncu
                                             : diagnose::CounterSource::automatic;
    options.use_cache = !a.no_cache;
    options.ncu_csv = a.ncu_csv;
    options.source_name = a.candidate;
    options.ceilings_file = a.ceilings;
    if (!tree) {
        options.budget_seconds = a.budget_seconds;
        options.budget_passes = a.budget_passes;
    } else {
        // The tree's leaves pick the tools, and stage 2 counts only what they need; the budget is
        // the tree's (applied to its actions by their measured costs).
        if (!options.tools.empty()) return make_error("--tree and --tools are exclusive: the tree picks the tools");
        autoprofiler::collect_by_tree(*tree, options, counters_reply(a));
    }
    if (!a.quiet)
        options.on_progress = [start = std::chrono::steady_clock::now()](const std::string& line) {
            double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::cerr << fmt::format("[{:6.1f} s] {}\n", elapsed, line);
        };
    return options;
}

// Usage problems with the arguments themselves, before anything is built; empty when fine.
std::string usage_problem(const ProfileArgs& a) {
    if (a.task.empty() || a.candidate.empty()) return "kernelpro profile needs TASK and CANDIDATE.cu (or --list-tools)";
    if (a.json && a.feedback) return "--json and --feedback are exclusive";
    if (!std::filesystem::is_regular_file(a.candidate)) return "candidate not found: " + a.candidate;
    return "";
}

int print_tree_report(const ProfileArgs& a, const autoprofiler::TreeChoice& tree, diagnose::ProfileReport& report) {
    report.candidate = a.candidate;
    // Launch facts (registers, local memory, shared memory) come with a worker's counters reply.
    auto outcomes = autoprofiler::walk_profile(tree, report, counters_reply(a));
    if (a.json) {
        auto j = diagnose::profile_report_json(report);
        for (size_t i = 0; i < outcomes.size(); ++i) j["kernels"][i]["tree"] = autoprofiler::to_json(outcomes[i]);
        std::cout << dump_json(j, 2) << "\n";
    } else {
        for (const auto& o : outcomes) {
            if (!a.feedback) {
                std::string path;
                for (const auto& n : o.path) path += (path.empty() ? "" : " > ") + n;
                std::string taken, dropped;
                for (const auto& t : o.taken) taken += " " + t;
                for (const auto& d : o.dropped) dropped += " " + d;
                std::cout << fmt::format("Tree {}: {}; took{}{}; {:.2f} s, {} passes\n", a.tree, path, taken.empty() ? " nothing" : taken,
                                         dropped.empty() ? "" : "; dropped for the budget:" + dropped, o.cost.seconds, o.cost.passes);
            }
            std::cout << o.feedback;
        }
    }
    if (report.environment_error.empty()) return kExitOk;
    std::cerr << "error: " << report.environment_error << "\n";
    return kExitEnvironment;
}

int print_report(const ProfileArgs& a, const autoprofiler::TreeChoice* tree, diagnose::ProfileReport& report) {
    if (tree) return print_tree_report(a, *tree, report);
    report.candidate = a.candidate;
    if (a.json) std::cout << dump_json(diagnose::profile_report_json(report), 2) << "\n";
    else if (a.feedback) std::cout << diagnose::render_profile_feedback(report);
    else std::cout << diagnose::render_profile_text(report);
    if (report.environment_error.empty()) return kExitOk;
    std::cerr << "error: " << report.environment_error << "\n";
    return kExitEnvironment;
}

int run_profile(const ProfileArgs& a) {
    if (a.list_tools) {
        if (a.json) std::cout << analysis::tool_list_json().dump(2) << "\n";
        else std::cout << analysis::render_tool_list();
        return kExitOk;
    }
    if (a.list_collectors) {
        if (a.json) std::cout << diagnose::collector_list_json().dump(2) << "\n";
        else std::cout << diagnose::render_collector_list();
        return kExitOk;
    }
    if (auto problem = usage_problem(a); !problem.empty()) {
        std::cerr << "error: " << problem << "\n";
        return kExitUsage;
    }
    // A tree's static signals (registers, local and shared memory, the launch) come from the
    // worker's counters reply: keep it for the tree when the user did not ask for it.
    ProfileArgs walked = a;
    std::filesystem::path scratch_reply;
    if (!a.tree.empty() && counters_reply(a).empty()) {
        scratch_reply = std::filesystem::temp_directory_path() / fmt::format("kp-tree-counters-{}.json", static_cast<long>(getpid()));
        walked.counters_file = scratch_reply.string();
    }
    // The tree is read once: its leaves steer the collection and are walked for the report.
    std::optional<autoprofiler::TreeChoice> tree;
    if (!a.tree.empty()) {
        auto choice = autoprofiler::choose_tree(a.tree, a.tree_costs, {a.budget_seconds, a.budget_passes});
        if (!choice) {
            std::cerr << "error: " << choice.error().message << "\n";
            return kExitUsage;
        }
        tree = std::move(*choice);
    }
    auto options = profile_options(walked, tree ? &*tree : nullptr);
    if (!options) {
        std::cerr << "error: " << options.error().message << "\n";
        return kExitUsage;
    }
    auto task = load_task(a.task);
    if (!task) {
        std::cerr << task.error().message << "\n";
        return kExitUsage;
    }
    auto values = parse_parameter_values(a.params);
    if (!values) {
        std::cerr << "error: " << values.error().message << "\n";
        return kExitUsage;
    }
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    CandidateBuilder builder(build_options);
    auto build = builder.build(task_build_request(*task, a.candidate, *values));
    if (!build) {
        std::cerr << "error: cannot build: " << build.error().message << "\n";
        return kExitEnvironment;
    }
    if (!build->ok()) {
        std::cerr << "error: the candidate did not build (" << build_status_name(build->status) << "): " << build->message << "\n";
        return kExitCandidateFailed;
    }
    auto report = diagnose::profile_candidate_report(*task, *build, *options);
    if (!report) {
        if (std::error_code ignored; !scratch_reply.empty()) std::filesystem::remove(scratch_reply, ignored);
        std::cerr << "error: " << report.error().message << "\n";
        return kExitEnvironment;
    }
    const int status = print_report(walked, tree ? &*tree : nullptr, *report);
    if (std::error_code ignored; !scratch_reply.empty()) std::filesystem::remove(scratch_reply, ignored);
    return status;
}

}  // namespace

Handler register_profile(CLI::App& root) {
    auto* cmd = root.add_subcommand("profile", "Profile a candidate: roofline class, then ranked findings from the micro-profiling tools");
    auto a = std::make_shared<ProfileArgs>();
    cmd->add_option("task", a->task, "Task folder (holding task.toml)");
    cmd->add_option("candidate", a->candidate, "Candidate .cu file");
    cmd->add_flag("--list-tools", a->list_tools, "List the tools (name, roofline classes, data needed) and exit; with --json, every metric too");
    cmd->add_flag("--list-collectors", a->list_collectors,
                  "List the collectors (name, on by default or not, GPU, stages, declared cost, what each provides) and exit");
    cmd->add_flag("--json", a->json, "Print the JSON report (schema kernelpro.profile/1)");
    cmd->add_flag("--feedback", a->feedback, "Print only the compact feedback text given to an LLM");
    cmd->add_option("--tools", a->tools, "Run only these tools (comma-separated, see --list-tools)")
        ->allow_extra_args(false);  // one list per --tools, so TASK and CANDIDATE after it stay positionals
    cmd->add_option("--collectors", a->collectors,
                    "Collectors (see --list-collectors): a list replaces the default set (all but source; the "
                    "timeline only for calls of 2+ kernels unless named), +NAME adds, -NAME removes")
        ->allow_extra_args(false);
    cmd->add_option("--stages", a->stages, "Counter collection: auto (one run with every tool's counters when the budget allows, else two), 1, 2")
        ->check(CLI::IsMember({"auto", "1", "2"}))
        ->capture_default_str();
    cmd->add_option("--counters", a->counters,
                    "Who counts: auto (the worker itself through CUPTI's range profiler; ncu for the source page or "
                    "when that fails), cupti (the worker only), ncu (always ncu)")
        ->check(CLI::IsMember({"auto", "cupti", "ncu"}))
        ->capture_default_str();
    cmd->add_option("--ncu-csv", a->ncu_csv,
                    "Diagnose from counters recorded before instead of collecting them: ncu's (`ncu -i R --csv --page raw "
                    "--print-units base`, or a --metrics CSV) or the worker's reply (--keep-counters, with its traced call's "
                    "timeline); needs no GPU")
        ->check(CLI::ExistingFile);
    cmd->add_option("--ceilings", a->ceilings, "Device ceilings from this file (`kernelpro device --json` output) instead of this GPU's")
        ->check(CLI::ExistingFile);
    cmd->add_flag("--no-cache", a->no_cache, "Collect again even when this build was profiled before on this GPU (the fresh results replace the cached ones)");
    cmd->add_option("--budget-seconds", a->budget_seconds, "Profiling time budget, seconds")->capture_default_str();
    cmd->add_option("--budget-passes", a->budget_passes, "Replay-pass budget (CUPTI or ncu), both stages")->capture_default_str();
    cmd->add_option("-D,--param", a->params, "Tunable value NAME=VALUE (repeatable)")
        ->allow_extra_args(false);  // one value per -D: it must not swallow the positionals after it
    cmd->add_option("--ncu", a->ncu, "Path of ncu (default: KERNELPRO_NCU, PATH, the usual install folders)");
    cmd->add_option("--keep-request", a->request_file, "Write the worker's profile_run request here and keep it (the ncu commands in --json then re-run as recorded)");
    cmd->add_option("--keep-counters", a->counters_file, "Write the worker's raw CUPTI counters reply (JSON) here");
    cmd->add_flag("-q,--quiet", a->quiet, "No progress lines on stderr");
    cmd->add_option("--tree", a->tree,
                    "Profiling tree (docs/autoprofiler.md): a file, or none | roofline | full; for each kernel, stage 2 counts and "
                    "the feedback shows what its leaf takes within --budget-seconds/--budget-passes");
    cmd->add_option("--tree-costs", a->tree_costs, "The tree's action costs: a GPU name or a cost file")->capture_default_str();
    return [a]() -> int { return run_profile(*a); };
}

}  // namespace kp::cli
