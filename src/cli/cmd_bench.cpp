// kernelpro bench TASKS_DIR [--tasks a,b] [--llm SPEC] [--from-dir DIR] [--budget-evals N] [--budget-seconds S]
//                           [--jobs N] [--gpus all|0,2|N] [--out DIR] [--store PATH] [--seed N] [--no-compile-baseline]
// Runs optimize on every task folder under TASKS_DIR (an imported KernelBench level, the example
// tasks, a user's own), several problems at once (their builds overlap; each GPU of the pool runs
// one worker at a time), and writes OUT/results.md and OUT/results.json (docs/kernelbench.md), with
// the pool's throughput (GPU busy fraction, compile/timing overlap, candidates per GPU-hour). Interrupted, it
// resumes: running the same command again skips finished problems and resumes unfinished runs from
// the run store. Exit codes: 0 the table was written, 2 usage, 3 environment.
#include <csignal>
#include <ctime>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/bench_problem.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "cli/gpu_pool_option.h"
#include "common/files.h"
#include "search/search_driver.h"
#include "store/run_store.h"

namespace kp::cli {

namespace fs = std::filesystem;

namespace {

struct BenchArgs {
    std::string tasks_dir, tasks, out, store, from_dir, llm, llm_config, llm_record, llm_replay, gpus;
    std::int64_t budget_evals = 8;
    double budget_seconds = 0;
    int jobs = 0;  // 0: two problems per GPU
    std::uint64_t seed = 1;
    bool no_compile = false, baselines_in_search = false, profile = false, quiet = false;
    int trials = 3;
    double max_time = 1.0;
};

std::atomic<BenchShared*> g_shared{nullptr};
extern "C" void on_bench_interrupt(int) {
    // Only an atomic store here (signal-safe); the problem threads read it between steps.
    if (auto* s = g_shared.load()) s->stop.store(true);
}

std::vector<fs::path> task_folders(const fs::path& root, const std::string& only) {
    std::vector<fs::path> found;
    std::error_code ec;
    if (fs::is_regular_file(root / "task.toml")) return {root};
    for (const auto& e : fs::directory_iterator(root, ec))
        if (e.is_directory() && fs::is_regular_file(e.path() / "task.toml")) found.push_back(e.path());
    std::sort(found.begin(), found.end());
    if (only.empty()) return found;
    std::vector<fs::path> chosen;
    size_t start = 0;
    while (start <= only.size()) {
        size_t comma = only.find(',', start);
        std::string name = only.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        for (const auto& f : found)
            if (f.filename() == name) chosen.push_back(f);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return chosen;
}

// OUT/bench.json: per problem, its run and, once finished, its row. What makes bench resumable.
class Manifest {
public:
    explicit Manifest(fs::path path) : path_(std::move(path)) {
        auto text = read_text_file(path_);
        if (text.ok()) data_ = nlohmann::json::parse(*text, nullptr, false);
        if (!data_.is_object()) data_ = {{"schema", "kernelpro.bench-manifest/1"}, {"problems", nlohmann::json::object()}};
    }
    std::optional<kernelbench::BenchProblemResult> finished(const std::string& folder) const {
        const auto& p = data_["problems"];
        if (p.contains(folder) && p[folder].contains("result")) return kernelbench::BenchProblemResult::from_json(p[folder]["result"]);
        return std::nullopt;
    }
    std::optional<std::int64_t> run_of(const std::string& folder) const {
        const auto& p = data_["problems"];
        if (p.contains(folder) && p[folder].contains("run_id")) return p[folder]["run_id"].get<std::int64_t>();
        return std::nullopt;
    }
    void set_run(const std::string& folder, std::int64_t run) {
        std::lock_guard<std::mutex> lock(mutex_);
        data_["problems"][folder]["run_id"] = run;
        save();
    }
    void set_result(const std::string& folder, const kernelbench::BenchProblemResult& row) {
        std::lock_guard<std::mutex> lock(mutex_);
        // Interrupted or failed for reasons that are not the kernel's: tried again on the next run.
        nlohmann::json& entry = data_["problems"][folder];
        if (!entry.is_object()) entry = nlohmann::json::object();
        if (row.status == "interrupted" || row.status == "error") entry.erase("result");
        else entry["result"] = row.to_json();
        save();
    }

private:
    void save() { (void)write_file_atomically(path_, data_.dump(2) + "\n"); }
    fs::path path_;
    nlohmann::json data_;
    std::mutex mutex_;
};

void write_table(const fs::path& out, const std::vector<kernelbench::BenchProblemResult>& rows, const std::string& title,
                 const std::string& suite, const GpuPool& pool) {
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char created[32];
    std::strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
    (void)write_file_atomically(out / "results.md", kernelbench::bench_table_markdown(rows, title) + "\n" + pool.summary_markdown());
    nlohmann::json json = kernelbench::bench_table_json(rows, suite, created);
    json["gpu_pool"] = pool.to_json();  // this invocation's GPUs and throughput (a resumed bench: its own session)
    (void)write_file_atomically(out / "results.json", json.dump(2) + "\n");
}

int run_bench(const BenchArgs& a) {
    auto folders = task_folders(a.tasks_dir, a.tasks);
    if (folders.empty()) {
        std::cerr << "error: no task folders (with task.toml) under " << a.tasks_dir << (a.tasks.empty() ? "" : " matching --tasks") << "\n";
        return kExitUsage;
    }
    if (auto gpu = require_usable_gpu(); !gpu) {  // before any folder or run is made
        std::cerr << "error: " << gpu.error().message << "\n";
        return kExitEnvironment;
    }
    auto pool = make_gpu_pool(a.gpus);
    if (!pool) {
        std::cerr << "error: " << pool.error().message << "\n";
        return kExitEnvironment;
    }
    const int jobs = a.jobs > 0 ? a.jobs : static_cast<int>(2 * (*pool)->size());
    BenchSettings settings;
    if (a.out.empty()) {
        // Benches started in the same second get folders of their own; --out DIR is reused (resumed).
        auto made = create_unique_directory(fs::path("kernelpro-bench-" + utc_stamp()));
        if (!made) {
            std::cerr << "error: " << made.error().message << "\n";
            return kExitEnvironment;
        }
        settings.out_dir = *made;
    } else {
        settings.out_dir = a.out;
    }
    settings.store_path = a.store.empty() ? settings.out_dir / "runs.db" : fs::path(a.store);
    settings.from_dir = a.from_dir;
    settings.llm = {a.llm, a.llm_config, a.llm_record, a.llm_replay};
    settings.budget_evals = a.budget_evals;
    settings.budget_seconds = a.budget_seconds;
    settings.seed = a.seed;
    settings.compile_baseline = !a.no_compile;
    settings.baselines_in_search = a.baselines_in_search;
    settings.profile = a.profile;
    settings.trials = a.trials;
    settings.max_time = a.max_time;
    settings.quiet = a.quiet;
    std::error_code ec;
    fs::create_directories(settings.out_dir, ec);
    {
        // Created (and its schema migrated) here, once: the problems' threads then only connect.
        auto store = store::RunStore::open(settings.store_path);
        if (!store.ok()) {
            std::cerr << "error: run store " << settings.store_path.string() << ": " << store.error().message << "\n";
            return kExitEnvironment;
        }
    }
    Manifest manifest(settings.out_dir / "bench.json");
    std::vector<std::optional<kernelbench::BenchProblemResult>> rows(folders.size());
    std::vector<size_t> todo;
    for (size_t i = 0; i < folders.size(); ++i) {
        rows[i] = manifest.finished(folders[i].filename().string());
        if (!rows[i]) todo.push_back(i);
    }
    std::cerr << fmt::format("bench: {} problems ({} already done), {} at a time on {} GPU slot{}, out {}\n", folders.size(),
                             folders.size() - todo.size(), jobs, (*pool)->size(), (*pool)->size() == 1 ? "" : "s", settings.out_dir.string());
    BenchShared shared;
    shared.pool = pool->get();
    g_shared.store(&shared);
    auto previous = std::signal(SIGINT, on_bench_interrupt);
    std::mutex next_mutex, print_mutex;
    size_t next = 0;
    auto work = [&] {
        for (;;) {
            size_t i;
            {
                std::lock_guard<std::mutex> lock(next_mutex);
                if (next >= todo.size() || shared.stop.load()) return;
                i = todo[next++];
            }
            const std::string folder = folders[i].filename().string();
            BenchProblem problem{folders[i], manifest.run_of(folder)};
            auto row = run_bench_problem(problem, settings, shared, [&](std::int64_t run) { manifest.set_run(folder, run); });
            manifest.set_result(folder, row);
            std::lock_guard<std::mutex> lock(print_mutex);
            rows[i] = row;
            if (!a.quiet)
                std::cerr << fmt::format("  {}: {}{}\n", row.task, row.status,
                                         row.speedup_over_eager() ? fmt::format(", {:.2f}x over eager", *row.speedup_over_eager()) : "");
        }
    };
    std::thread stopper([&] {  // turns the signal's flag into stop requests for the running searches
        while (!shared.stop.load() && g_shared.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::lock_guard<std::mutex> lock(shared.drivers_mutex);
        for (auto* d : shared.drivers) d->request_stop();
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < jobs; ++t) threads.emplace_back(work);
    for (auto& t : threads) t.join();
    g_shared.store(nullptr);
    stopper.join();
    std::signal(SIGINT, previous);
    std::vector<kernelbench::BenchProblemResult> done;
    for (auto& r : rows)
        if (r) done.push_back(*r);
    write_table(settings.out_dir, done, fmt::format("kernelpro bench: {} ({} problems)", a.tasks_dir, done.size()),
                fs::absolute(a.tasks_dir).filename().string(), **pool);
    std::cerr << "throughput: " << (*pool)->meter().figures().summary() << "\n";
    for (const auto& r : (*pool)->retired()) std::cerr << "warning: retired " << r.device.label() << ": " << r.reason << "\n";
    std::cout << kernelbench::bench_table_markdown(done, "kernelpro bench") << "\n"
              << (settings.out_dir / "results.md").string() << "\n";
    if (done.size() < folders.size()) std::cout << "interrupted: run the same command again to resume\n";
    return kExitOk;
}

}  // namespace

Handler register_bench(CLI::App& root) {
    auto* cmd = root.add_subcommand("bench", "Optimize every task of a folder and write the results table (markdown and JSON)");
    auto a = std::make_shared<BenchArgs>();
    cmd->add_option("tasks_dir", a->tasks_dir, "Folder of task folders (an imported level, tasks/, your own)")->required()
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--tasks", a->tasks, "Only these task folders (comma-separated names)");
    cmd->add_option("--from-dir", a->from_dir, "Starting kernels: DIR/<task>.cu or DIR/<task>/*.cu")->check(CLI::ExistingDirectory);
    cmd->add_option("--llm", a->llm, "LLM agents: PROVIDER:MODEL, script:FILE.jsonl, or script:DIR (DIR/<task>.jsonl per problem)");
    cmd->add_option("--llm-config", a->llm_config, "LLM configuration file (TOML, see docs/llm.md)")->check(CLI::ExistingFile);
    cmd->add_option("--llm-record", a->llm_record, "Append every LLM exchange to this JSONL file");
    cmd->add_option("--llm-replay", a->llm_replay, "Serve the LLM exchanges from this recording");
    cmd->add_option("--budget-evals", a->budget_evals, "Evaluations per problem")->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--budget-seconds", a->budget_seconds, "Wall time per problem, seconds (0: none)");
    cmd->add_option("--jobs", a->jobs, "Problems in flight at once (builds overlap; each GPU runs one worker at a time; default: 2 per GPU)")
        ->check(CLI::Range(1, 64));
    add_gpus_option(*cmd, a->gpus);
    cmd->add_option("--out", a->out, "Output folder (default: kernelpro-bench-UTCSTAMP); reuse it to resume");
    cmd->add_option("--store", a->store, "Run store (default: OUT/runs.db)");
    cmd->add_option("--seed", a->seed, "Search seed")->capture_default_str();
    cmd->add_flag("--no-compile-baseline", a->no_compile, "Do not time torch.compile (PyTorch tasks)");
    cmd->add_flag("--profile", a->profile, "Profile every correct candidate so the tuner and the LLM act on its findings (as optimize)");
    cmd->add_flag("--baselines-in-search", a->baselines_in_search,
                  "Time torch.compile in every search evaluation instead of a final one (saves a worker per problem with a "
                  "budget of 1)");
    cmd->add_option("--trials", a->trials, "Correctness trials per evaluation")->capture_default_str()->check(CLI::Range(1, 100));
    cmd->add_option("--max-time", a->max_time, "Timing cap per evaluation, seconds")->capture_default_str();
    cmd->add_flag("-q,--quiet", a->quiet, "No line per problem");
    return [a]() { return run_bench(*a); };
}

}  // namespace kp::cli
