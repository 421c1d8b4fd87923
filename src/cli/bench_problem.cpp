#include "cli/bench_problem.h"

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/search_session.h"
#include "optimize/run_outputs.h"
#include "common/files.h"
#include "kernelbench/baseline_timing.h"
#include "kernelbench/first_version.h"
#include "search/proposers/parameter_space.h"
#include "search/search_driver.h"
#include "store/run_store.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace fs = std::filesystem;

namespace {

// --from-dir: DIR/<task>.cu, else the first .cu of DIR/<task>/.
std::optional<fs::path> starting_candidate(const fs::path& from_dir, const std::string& task) {
    if (from_dir.empty()) return std::nullopt;
    if (fs::is_regular_file(from_dir / (task + ".cu"))) return from_dir / (task + ".cu");
    std::error_code ec;
    std::vector<fs::path> found;
    for (const auto& e : fs::directory_iterator(from_dir / task, ec))
        if (e.path().extension() == ".cu") found.push_back(e.path());
    std::sort(found.begin(), found.end());
    if (found.empty()) return std::nullopt;
    return found.front();
}

// The LLM for one problem: a script folder gives each problem its own script (DIR/<task>.jsonl).
std::optional<LlmOptionValues> llm_for(const LlmOptionValues& llm, const std::string& task) {
    if (llm.spec.empty()) return std::nullopt;
    if (llm.spec.rfind("script:", 0) == 0 && fs::is_directory(llm.spec.substr(7))) {
        fs::path script = fs::path(llm.spec.substr(7)) / (task + ".jsonl");
        if (!fs::is_regular_file(script)) return std::nullopt;
        LlmOptionValues per_task = llm;
        per_task.spec = "script:" + script.string();
        return per_task;
    }
    return llm;
}

double gpu_seconds_of(const fs::path& evaluations_dir) {
    double total = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(evaluations_dir, ec)) {
        auto text = read_text_file(e.path());
        if (!text.ok()) continue;
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_object() && j.contains("seconds"))
            total += j["seconds"].value("verify", 0.0) + j["seconds"].value("time", 0.0);
    }
    return total;
}

struct Registration {  // the driver is told to stop on Ctrl-C while it runs
    BenchShared& shared;
    search::SearchDriver* driver;
    Registration(BenchShared& s, search::SearchDriver* d) : shared(s), driver(d) {
        std::lock_guard<std::mutex> lock(shared.drivers_mutex);
        shared.drivers.push_back(driver);
        if (shared.stop.load()) driver->request_stop();
    }
    ~Registration() {
        std::lock_guard<std::mutex> lock(shared.drivers_mutex);
        shared.drivers.erase(std::remove(shared.drivers.begin(), shared.drivers.end(), driver), shared.drivers.end());
    }
};

void fill_final(kernelbench::BenchProblemResult& row, kp::Evaluator& gpu, const TaskSpec& task, const fs::path& best, bool compile) {
    auto times = kernelbench::time_against_baselines(gpu, task, best, compile);
    if (!times.ok()) {
        row.status = "error";
        row.reason = "final evaluation: " + times.error().message;
        return;
    }
    row.gpu_seconds += times->report.verify_seconds + times->report.time_seconds;
    row.correct = times->report.status == FailureClass::Ok;
    row.status = row.correct ? "correct" : failure_class_name(times->report.status);
    if (!row.correct) row.reason = "final evaluation: " + times->report.message.substr(0, 300);
    row.eager_seconds = times->eager;
    row.compile_seconds = times->compile;
    row.best_seconds = times->best;
    row.roofline_fraction = times->roofline_fraction;
    row.device = times->report.device.value("name", "");
}

// The times of the best node's own evaluation (OUT/<task>/best.json), when it timed every baseline.
void fill_from_best_report(kernelbench::BenchProblemResult& row, const fs::path& best_json) {
    auto text = read_text_file(best_json);
    auto j = text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    const nlohmann::json timing = j.is_object() ? j.value("timing", nlohmann::json::object()) : nlohmann::json::object();
    auto median = [](const nlohmann::json& s) -> std::optional<double> {
        if (s.is_object() && s.contains("median") && s["median"].is_number()) return s["median"].get<double>();
        return std::nullopt;
    };
    row.correct = j.is_object() && j.value("correct", false);
    row.status = row.correct ? "correct" : "error";
    if (!row.correct) row.reason = "the best node's report is missing or not correct: " + best_json.string();
    row.best_seconds = median(timing.value("candidate", nlohmann::json()));
    row.eager_seconds = median(timing.value("baseline", nlohmann::json()));
    if (timing.contains("extra_baselines")) row.compile_seconds = median(timing["extra_baselines"].value("compile", nlohmann::json()));
    if (timing.contains("fraction_of_floor") && timing["fraction_of_floor"].is_number())
        row.roofline_fraction = timing["fraction_of_floor"].get<double>();
    if (j.is_object() && j.contains("device") && j["device"].is_object()) row.device = j["device"].value("name", "");
}

}  // namespace

kernelbench::BenchProblemResult run_bench_problem(const BenchProblem& problem, const BenchSettings& settings, BenchShared& shared,
                                                  const std::function<void(std::int64_t)>& on_run) {
    kernelbench::BenchProblemResult row;
    row.task = problem.task_dir.filename().string();
    auto task = load_task(problem.task_dir);
    if (!task.ok()) {
        row.status = "task error";
        row.reason = task.error().message;
        return row;
    }
    row.task = task->name;
    row.level = task->origin ? task->origin->level : 0;
    row.degenerate = task->has_flag("degenerate");
    const fs::path out_dir = settings.out_dir / task->name;
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    (void)write_file_atomically(out_dir / "task-path.txt", fs::absolute(problem.task_dir).string() + "\n");

    std::shared_ptr<llm::LlmAgents> agents;
    if (auto llm = llm_for(settings.llm, task->name)) {
        auto made = make_llm_agents(*llm);
        if (!made.ok()) {
            row.status = "error";
            row.reason = "--llm: " + made.error().message;
            return row;
        }
        agents = *made;
    }
    // The starting kernel (not needed when resuming: the store has it).
    std::optional<kernelbench::FirstVersion> written;
    std::string source;
    if (!problem.resume_run) {
        std::optional<fs::path> start = starting_candidate(settings.from_dir, task->name);
        if (!start && fs::exists(task->directory / "candidates" / "tuned.cu")) start = task->directory / "candidates" / "tuned.cu";
        if (!start && task->reference.source) start = *task->reference.source;
        if (start) {
            auto text = read_text_file(*start);
            if (!text.ok()) {
                row.status = "error";
                row.reason = text.error().message;
                return row;
            }
            source = *text;
        } else if (task->reference.pytorch && agents) {
            auto first = kernelbench::write_first_version(*agents, *task);
            if (!first.ok()) {
                row.status = "no starting kernel";
                row.reason = first.error().message;
                return row;
            }
            written = std::move(*first);
            source = written->code.source;
        } else {
            row.status = "no starting kernel";
            row.reason = kernelbench::no_starting_kernel_message(*task);
            return row;
        }
    }
    auto store = store::RunStore::open(settings.store_path);
    if (!store.ok()) {
        row.status = "error";
        row.reason = "run store: " + store.error().message;
        return row;
    }
    // optimize's session (search_session.h): the recipe is stored with the run, so `runs resume`
    // continues a bench problem too.
    SearchSession session;
    session.task = *task;
    auto& recipe = session.recipe;
    recipe.task_given = problem.task_dir.string();
    recipe.task_path = fs::absolute(problem.task_dir).string();
    recipe.proposers = agents ? std::vector<std::string>{"tuner", "llm"} : std::vector<std::string>{"tuner"};
    if (auto llm = llm_for(settings.llm, task->name)) recipe.llm = {llm->spec, llm->config, llm->record, llm->replay, nullptr};
    recipe.evaluation = {settings.trials, settings.max_time, settings.min_time, false,
                         settings.baselines_in_search && settings.compile_baseline};
    recipe.profile.enabled = settings.profile || !settings.profile_tree.empty();
    recipe.profile.tree = settings.profile_tree;
    recipe.out_dir = fs::absolute(out_dir).string();
    recipe.store = fs::absolute(settings.store_path).string();
    recipe.working_directory = fs::current_path().string();
    session.gpu_pool = shared.pool;
    auto context = proposer_context(session);
    if (assemble_session(session, context) != kExitOk) {
        row.status = "error";
        row.reason = "the proposers could not be made (see the lines above)";
        return row;
    }
    search::SearchConfig config;
    config.seed = settings.seed;
    config.stop_limits["evaluation_budget"] = static_cast<double>(settings.budget_evals);
    if (settings.budget_seconds > 0) config.stop_limits["wall_time_budget"] = settings.budget_seconds;
    search::adjust_config_for(recipe.proposers, config);
    search::SearchDriver driver(*store, *session.evaluator, *session.proposer);
    Registration registration(shared, &driver);
    Result<search::SearchOutcome> outcome = make_error("not run");
    if (problem.resume_run) {
        on_run(*problem.resume_run);
        outcome = driver.resume(*problem.resume_run);
    } else {
        search::Candidate baseline{source, {}};
        auto space = parse_tunables(source);
        if (space.ok() && !space->parameters.empty()) baseline.params = search::resolve_point(source, *space, {});
        driver.set_progress_callback([&, announced = false](const search::SearchProgress&) mutable {
            if (!announced) on_run(driver.run_id());
            announced = true;
        });
        outcome = driver.start(context.task, baseline, config, recipe);
        if (outcome.ok() && written) kernelbench::record_writer_exchanges(*store, outcome->run_id, written->exchanges);
    }
    if (!outcome.ok()) {
        row.status = "error";
        row.reason = outcome.error().message;
        return row;
    }
    row.run_id = outcome->run_id;
    row.evaluations = outcome->spend.evaluations;
    if (auto totals = store->llm_totals(outcome->run_id); totals.ok()) {
        row.tokens = totals->tokens_in + totals->tokens_out;
        row.cost_usd = totals->cost_usd;
    }
    auto found = optimize::write_run_outputs(driver, *outcome, *session.evaluator, task->name, out_dir);
    row.gpu_seconds = gpu_seconds_of(out_dir / "evaluations");
    if (outcome->stop_reason.kind == search::StopKind::stop_requested) {
        row.status = "interrupted";
        row.reason = "resume with the same kernelpro bench command";
        return row;
    }
    if (outcome->stop_reason.kind == search::StopKind::evaluator_error || outcome->stop_reason.kind == search::StopKind::store_error) {
        row.status = "error";
        row.reason = outcome->stop_detail;
        return row;
    }
    if (!found.ok() || !*found) {
        const auto& root = driver.tree().node(0);
        row.status = root.outcome ? search::status_class_name(root.outcome->status) : "no correct kernel";
        row.reason = found.ok() ? "no correct kernel in " + std::to_string(row.evaluations) + " evaluations" +
                                      (root.outcome && !root.outcome->message.empty() ? ": " + root.outcome->message.substr(0, 300) : "")
                                : found.error().message;
        return row;
    }
    if (settings.baselines_in_search) fill_from_best_report(row, out_dir / "best.json");
    else fill_final(row, *session.gpu, *task, out_dir / "best.cu", settings.compile_baseline);
    return row;
}

}  // namespace kp::cli
