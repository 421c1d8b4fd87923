// kernelpro bench TASKS_DIR [--tasks a,b] [--llm SPEC] [--from-dir DIR] [--budget-evals N] [--budget-seconds S]
//                           [--jobs N] [--gpus all|0,2|N] [--out DIR] [--store PATH] [--seed N] [--no-compile-baseline]
// Runs optimize on every task folder under TASKS_DIR (an imported KernelBench level, the example
// tasks, a user's own), several problems at once (their builds overlap; each GPU of the pool runs
// one worker at a time), and writes OUT/results.md and OUT/results.json (docs/kernelbench.md), with
// the pool's throughput (GPU busy fraction, compile/timing overlap, candidates per GPU-hour). Interrupted, it
// resumes: running the same command again skips finished problems and resumes unfinished runs from
// the run store. `--shard I/K` runs one share of the problems (bench_shards.h), `--slurm` submits
// the shards as one Slurm job array (slurm_submit.h) and `bench merge` folds them into one table
// (bench_merge.h). Exit codes: 0 the table was written, 2 usage, 3 environment.
#include <csignal>
#include <ctime>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "autoprofiler/profile_walk.h"
#include "cli/bench_merge.h"
#include "cli/bench_output.h"
#include "cli/bench_problem.h"
#include "cli/bench_shards.h"
#include "cli/slurm_submit.h"
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
    std::string profile_tree;
    int trials = 3;
    double max_time = 1.0;
    std::string shard;  // I/K: this bench runs shard I of K of the problems (bench_shards.h)
    bool slurm = false;
    SlurmOptions slurm_options;
    std::vector<std::string> forwarded;  // with --slurm: the options every shard runs with
};

std::atomic<BenchShared*> g_shared{nullptr};
extern "C" void on_bench_interrupt(int) {
    // Only an atomic store here (signal-safe); the problem threads read it between steps.
    if (auto* s = g_shared.load()) s->stop.store(true);
}

int run_bench(const BenchArgs& a) {
    if (a.tasks_dir.empty()) {
        std::cerr << "error: bench: TASKS_DIR is required (or: kernelpro bench merge DIR)\n";
        return kExitUsage;
    }
    auto shard = a.shard.empty() ? Result<ShardSpec>(ShardSpec{}) : parse_shard(a.shard);
    if (!shard) {
        std::cerr << "error: --shard: " << shard.error().message << "\n";
        return kExitUsage;
    }
    auto all_folders = task_folders(a.tasks_dir, a.tasks);
    if (all_folders.empty()) {
        std::cerr << "error: no task folders (with task.toml) under " << a.tasks_dir << (a.tasks.empty() ? "" : " matching --tasks") << "\n";
        return kExitUsage;
    }
    if (!a.profile_tree.empty()) {
        if (auto tree = autoprofiler::choose_tree(a.profile_tree, "h200"); !tree) {
            std::cerr << "error: --profile-tree: " << tree.error().message << "\n";
            return kExitUsage;
        }
    }
    if (a.slurm) {  // the submitting machine needs no GPU: the array's tasks check theirs
        if (!a.shard.empty() || !a.store.empty()) {
            std::cerr << "error: --slurm makes the shards itself, each with its own run store (OUT/shard-I): drop "
                      << (a.shard.empty() ? "--store" : "--shard") << "\n";
            return kExitUsage;
        }
        std::string out = a.out.empty() ? "kernelpro-bench-" + utc_stamp() : a.out;
        return submit_bench_array({a.tasks_dir, out, all_folders.size(), a.forwarded}, a.slurm_options);
    }
    const auto folders = shard_of(all_folders, *shard);
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
    settings.profile_tree = a.profile_tree;
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
    BenchManifest manifest(settings.out_dir / "bench.json");
    BenchPlan plan{a.tasks_dir, fs::absolute(a.tasks_dir).filename().string(), shard->index, shard->count, {}};
    for (const auto& f : folders) plan.problems.push_back(f.filename().string());
    manifest.set_plan(plan);
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
    write_bench_table(settings.out_dir, done, bench_table_title(a.tasks_dir, done.size()), plan.suite, pool->get());
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
    cmd->add_option("tasks_dir", a->tasks_dir, "Folder of task folders (an imported level, tasks/, your own); required but for merge")
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
    cmd->add_option("--profile-tree", a->profile_tree, "A profiling tree picks each kernel's findings (as optimize; implies --profile)");
    cmd->add_flag("--baselines-in-search", a->baselines_in_search,
                  "Time torch.compile in every search evaluation instead of a final one (saves a worker per problem with a "
                  "budget of 1)");
    cmd->add_option("--trials", a->trials, "Correctness trials per evaluation")->capture_default_str()->check(CLI::Range(1, 100));
    cmd->add_option("--max-time", a->max_time, "Timing cap per evaluation, seconds")->capture_default_str();
    cmd->add_flag("-q,--quiet", a->quiet, "No line per problem");
    cmd->add_option("--shard", a->shard, "Run shard I of K of the problems (I from 0; folder j of the sorted list is in shard j mod K)");
    auto* slurm = cmd->add_option_group("Slurm", "A job array, one shard per array task (docs/cluster.md)");
    slurm->add_flag("--slurm", a->slurm, "Submit the bench as one Slurm job array (sbatch) instead of running it here");
    auto& s = a->slurm_options;
    slurm->add_option("--partition", s.partition, "Slurm partition");
    slurm->add_option("--gpus-per-task", s.gpus_per_task, "GPUs per array task (0: ask for none)")->capture_default_str()
        ->check(CLI::Range(0, 64));
    slurm->add_option("--shards", s.shards, "Array tasks (default: one per problem)")->check(CLI::Range(1, 100000));
    slurm->add_option("--time", s.time_minutes, "Time limit per array task, minutes (default: the partition's)")->check(CLI::Range(1, 1000000));
    slurm->add_option("--sbatch-arg", s.sbatch_args, "One more #SBATCH line for the batch script, e.g. --sbatch-arg=--account=A (repeatable)")
        ->allow_extra_args(false);
    slurm->add_flag("--wait", s.wait, "Wait until the array ends (polls squeue), then merge the shards into OUT");
    auto merge = register_bench_merge(*cmd);
    auto* merge_cmd = cmd->get_subcommand("merge");
    return [a, cmd, merge, merge_cmd]() {
        if (merge_cmd->parsed()) return merge();
        a->forwarded = given_options(*cmd, {"out", "slurm", "partition", "gpus-per-task", "shards", "time", "sbatch-arg", "wait", "shard"});
        return run_bench(*a);
    };
}

}  // namespace kp::cli
