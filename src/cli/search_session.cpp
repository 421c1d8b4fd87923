#include "cli/search_session.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <csignal>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "autoprofiler/profile_walk.h"
#include "build/cutlass_install.h"
#include "build/gpu_arch.h"
#include "cli/commands.h"
#include "kernelbench/first_version.h"
#include "cli/common_options.h"
#include "common/child_processes.h"
#include "common/files.h"
#include "llm/llm_config.h"
#include "optimize/run_outputs.h"
#include "optimize/run_settings.h"
#include "report/report_file.h"
#include "sandbox/sandbox_report.h"
#include "store/run_store.h"

namespace kp::cli {

namespace {

std::atomic<search::SearchDriver*> g_driver{nullptr};
std::atomic<int> g_interrupts{0};
// The first Ctrl-C stops after the evaluation in flight; a second one ends kernelpro at once, and
// the tools and workers it started with it.
extern "C" void on_interrupt(int signal_number) {
    if (g_interrupts++ > 0) {
        kill_child_groups();
        std::signal(signal_number, SIG_DFL);
        std::raise(signal_number);
    }
    if (auto* d = g_driver.load()) d->request_stop();
}


void build_evaluator(SearchSession& session) {
    const auto& recipe = session.recipe;
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    session.builder = std::make_unique<CandidateBuilder>(build_options);
    session.gpu = std::make_unique<kp::Evaluator>(*session.builder);
    if (session.gpu_pool) session.gpu->set_gpu_pool(session.gpu_pool);
    auto options = optimize::search_evaluation_options(recipe.evaluation.trials, recipe.evaluation.max_time,
                                                       recipe.evaluation.min_time);
    options.sandbox.required = recipe.evaluation.require_sandbox;
    options.compile_baseline = recipe.evaluation.compile_baseline && session.task.reference.pytorch.has_value();
    options.energy = optimize::search_energy_config(recipe.evaluation.energy, recipe.evaluation.energy_windows);
    session.evaluator = std::make_unique<optimize::GpuEvaluator>(session.task, *session.gpu, options, recipe.out_dir);
    if (recipe.profile.enabled) {
        diagnose::ProfileOptions profile_options;
        profile_options.budget_seconds = recipe.profile.budget_seconds;
        profile_options.source_name = "candidate.cu";  // what agents see: the code they were given, by line
        std::optional<autoprofiler::TreeChoice> tree;
        if (!recipe.profile.tree.empty()) {
            autoprofiler::Budget budget;  // the profile's seconds; passes only when asked (0: unbounded)
            budget.seconds = recipe.profile.budget_seconds;
            if (recipe.profile.tree_budget_passes > 0) budget.passes = recipe.profile.tree_budget_passes;
            auto chosen = autoprofiler::choose_tree(recipe.profile.tree, recipe.profile.tree_costs, budget);
            if (chosen) tree = std::move(*chosen);
            else  // a resumed run whose tree file is gone: its findings come from the fixed plan
                std::cerr << "warning: profile tree " << recipe.profile.tree << ": " << chosen.error().message
                          << "; profiling with the fixed plan\n";
        }
        session.evaluator->enable_profiling(profile_options, std::move(tree));
    }
}

// OUT/best.cu once more in a fresh worker (another seed, poison and buffer layout); the verdict and
// the sandbox it ran in go to the end of OUT/summary.md. False when the kernel fails it.
bool reverify_best(optimize::GpuEvaluator& evaluator, const std::filesystem::path& out_dir) {
    auto check = evaluator.reverify(out_dir / "best.cu");
    if (!check) {
        std::cerr << "warning: the best kernel could not be re-verified: " << check.error().message << "\n";
        return true;
    }
    std::string sandbox = check->report.sandbox.is_object()
                              ? sandbox::SandboxReport::from_json(check->report.sandbox).summary()
                              : "not reported";
    std::ofstream(out_dir / "summary.md", std::ios::app)
        << "\n## Re-verification\n\n" << check->summary() << "\n\nSandbox: " << sandbox << "\n";
    std::cerr << check->summary() << "\n";
    if (!check->passed())
        std::cout << "the best kernel failed re-verification; see " << (out_dir / "summary.md").string() << "\n";
    return check->passed();
}

bool allows_cutlass(const TaskSpec& task) {
    return std::find(task.libraries.begin(), task.libraries.end(), "cutlass") != task.libraries.end();
}

// The tree the writer's code-search tools read: the CUTLASS install a CUTLASS task builds
// against (build/cutlass_install.h: --cutlass-dir / $KERNELPRO_CUTLASS_DIR, the nvidia-cutlass
// wheel). "" when the task does not allow CUTLASS or no install is found (the CuTe coder then
// writes without the tools, and says so).
std::string code_search_tree_for(const TaskSpec& task) {
    if (!allows_cutlass(task)) return "";
    auto install = locate_cutlass();
    if (!install) {
        std::cerr << "note: the task allows CUTLASS but no CUTLASS tree was found: the CuTe coder writes without code search ("
                  << install.error().message << ")\n";
        return "";
    }
    return std::filesystem::absolute(install->root).string();
}

}  // namespace

std::string describe_task_for_agents(const TaskSpec& task) {
    if (task.reference.pytorch) return kernelbench::describe_pytorch_task(task);  // the PyTorch source is the definition
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

search::ProposerContext proposer_context(const SearchSession& session) {
    search::ProposerContext context;
    context.task = {session.task.name, optimize::task_fingerprint(session.task)};
    context.task_description = describe_task_for_agents(session.task);
    context.llm = session.recipe.llm;
    context.environment = llm::read_llm_environment();
    context.task_libraries = session.task.libraries;
    if (std::find(session.recipe.proposers.begin(), session.recipe.proposers.end(), "llm") != session.recipe.proposers.end())
        context.code_search_tree = code_search_tree_for(session.task);
    return context;
}

int assemble_session(SearchSession& session, search::ProposerContext& context) {
    const auto& names = session.recipe.proposers;
    if (auto checked = search::check_proposer_names(names); !checked) {
        std::cerr << "error: --proposer: " << checked.error().message << "\n";
        return kExitUsage;
    }
    if (auto ready = search::check_proposers_environment(names, context); !ready) {
        std::cerr << "error: " << ready.error().message << "\n";
        return kExitEnvironment;
    }
    auto proposer = search::make_proposers(names, context);
    if (!proposer) {
        std::cerr << "error: " << proposer.error().message << "\n";
        return kExitUsage;
    }
    session.proposer = std::move(*proposer);
    session.recipe.llm = context.llm;
    if (auto gpu = require_usable_gpu(); !gpu) {  // before anything is built or a run recorded
        std::cerr << "error: " << gpu.error().message << "\n";
        return kExitEnvironment;
    }
    if (session.recipe.out_dir.empty()) {
        // Runs started in the same second get folders of their own (NAME-STAMP, NAME-STAMP-2 ...).
        auto made = create_unique_directory(std::filesystem::path("kernelpro-out") / (session.task.name + "-" + utc_stamp()));
        if (!made) {
            std::cerr << "error: " << made.error().message << "\n";
            return kExitEnvironment;
        }
        session.recipe.out_dir = std::filesystem::absolute(*made).lexically_normal().string();
    }
    build_evaluator(session);
    return kExitOk;
}

std::string describe_session(const SearchSession& session) {
    const auto& recipe = session.recipe;
    std::string proposers;
    for (const auto& name : recipe.proposers) proposers += (proposers.empty() ? "" : ",") + name;
    std::string llm;
    if (recipe.llm.settings.is_object()) llm = " (" + recipe.llm.settings.value("spec", "") + ")";
    return fmt::format("proposers {}{}{}{}, out {}", proposers, llm, !recipe.profile.enabled ? "" : recipe.profile.tree.empty() ? ", profiled" : ", profiled (tree " + recipe.profile.tree + ")",
                       recipe.evaluation.energy ? ", energy measured" : "", recipe.out_dir);
}

// "kernelpro runs resume 3", with --store when the run's store is not the default one here.
std::string resume_command(std::int64_t run_id, const std::filesystem::path& store) {
    std::string command = fmt::format("kernelpro runs resume {}", run_id);
    std::error_code error;
    auto here = store::RunStore::default_path(std::filesystem::current_path());
    if (!store.empty() && !std::filesystem::equivalent(store, here, error)) command += " --store " + store.string();
    return command;
}

int run_search_session(search::SearchDriver& driver, store::RunStore& store, SearchSession& session, bool quiet,
                       const std::function<Result<search::SearchOutcome>()>& go) {
    auto& evaluator = *session.evaluator;
    const std::filesystem::path out_dir = session.recipe.out_dir;
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
    auto found = optimize::write_run_outputs(driver, *outcome, evaluator, session.task.name, out_dir);
    if (!found.ok()) {
        std::cerr << "error: writing results: " << found.error().message << "\n";
        return kExitEnvironment;
    }
    // The report is a view of the store: when it cannot be written the run's results still stand.
    auto report = report::write_run_report(store, outcome->run_id, out_dir / "report.html");
    if (!report.ok()) std::cerr << "note: no report.html: " << report.error().message << "\n";
    else
        for (const auto& notice : report->notices) std::cerr << "note: report.html: " << notice << "\n";
    std::cerr << fmt::format("run {}: {} after {} evaluations, {:.1f} s\n", outcome->run_id, outcome->stop_reason.name(),
                             outcome->spend.evaluations, outcome->spend.elapsed_seconds);
    if (!outcome->stop_detail.empty()) std::cerr << "  " << outcome->stop_detail << "\n";
    if (*found && !reverify_best(evaluator, out_dir)) return kExitCandidateFailed;
    if (*found) {
        std::cout << fmt::format("best: {:.3f}x over the baseline", outcome->best_speedup_over_baseline);
        if (outcome->best_speedup) std::cout << fmt::format(", {:.3f}x over the reference", *outcome->best_speedup);
        if (outcome->best_roofline_fraction)
            std::cout << fmt::format(", {:.1f}% of the roofline floor", 100.0 * *outcome->best_roofline_fraction);
        std::cout << "\n" << (out_dir / "best.cu").string() << "\n" << (out_dir / "summary.md").string() << "\n";
        if (report.ok()) std::cout << (out_dir / "report.html").string() << "\n";
        std::cout << "resume with: " << resume_command(outcome->run_id, session.recipe.store) << "\n";
        return kExitOk;
    }
    std::cout << "no correct kernel found; see " << (out_dir / "summary.md").string() << "\n";
    if (outcome->stop_reason.kind == search::StopKind::evaluator_error) return kExitEnvironment;
    return kExitCandidateFailed;
}

}  // namespace kp::cli
