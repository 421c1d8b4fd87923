#include "cli/slurm_submit.h"

#include <chrono>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "cli/bench_merge.h"
#include "cli/commands.h"
#include "common/files.h"
#include "common/process.h"
#include "common/resource_locator.h"

namespace kp::cli {

namespace fs = std::filesystem;

namespace {

ProcessOptions within(std::chrono::seconds limit) {
    ProcessOptions options;
    options.timeout = limit;
    return options;
}

// The array's job id as the last submission wrote it (OUT/slurm-job.txt), if any.
std::string last_job(const fs::path& out_dir) {
    auto text = read_text_file(out_dir / "slurm-job.txt");
    if (!text.ok()) return "";
    std::string id = *text;
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    return id;
}

// True while Slurm still lists a task of the job (pending or running). A job Slurm no longer
// knows (finished long ago, another cluster) is not queued: squeue then fails or prints nothing.
bool job_queued(const std::string& job) {
    auto listed = run_process({"squeue", "-h", "-j", job, "-o", "%i"}, within(std::chrono::seconds(30)));
    return listed.ok() && listed->succeeded() && listed->stdout_text.find_first_not_of(" \n") != std::string::npos;
}

}  // namespace

std::vector<std::string> given_options(const CLI::App& cmd, const std::vector<std::string>& leave_out) {
    std::vector<std::string> args;
    for (const CLI::Option* option : cmd.get_options()) {
        if (option->count() == 0 || option->get_positional() || option->get_lnames().empty()) continue;
        const std::string name = option->get_lnames().front();
        if (std::find(leave_out.begin(), leave_out.end(), name) != leave_out.end()) continue;
        if (option->get_expected_max() == 0) {  // a flag
            for (size_t i = 0; i < option->count(); ++i) args.push_back("--" + name);
            continue;
        }
        for (const auto& value : option->results()) {
            args.push_back("--" + name);
            args.push_back(value);
        }
    }
    return args;
}

std::string bench_array_script(const SlurmBench& bench, const SlurmOptions& options, int shards, const fs::path& kernelpro,
                               const fs::path& working_directory) {
    const fs::path out = fs::absolute(bench.out_dir).lexically_normal();
    std::string script = "#!/bin/bash\n";
    script += fmt::format("# Written by kernelpro bench --slurm: {} problems of {} in {} shards, one array task each.\n",
                          bench.problems, bench.tasks_dir, shards);
    script += "# Each shard keeps its own run store and manifest in OUT/shard-I: submitting this script again\n";
    script += "# (sbatch FILE, or the same kernelpro command) keeps finished problems and resumes the others.\n";
    script += "# Merge the shards' tables with: kernelpro bench merge " + shell_quote(out.string()) + "\n";
    script += "#SBATCH --job-name=kernelpro-bench\n";
    script += fmt::format("#SBATCH --array=0-{}\n", shards - 1);
    script += "#SBATCH --ntasks=1\n";
    script += "#SBATCH --chdir=" + working_directory.string() + "\n";
    script += "#SBATCH --output=" + (out / "slurm-%A_%a.out").string() + "\n";
    if (!options.partition.empty()) script += "#SBATCH --partition=" + options.partition + "\n";
    if (options.gpus_per_task > 0) script += fmt::format("#SBATCH --gpus-per-task={}\n", options.gpus_per_task);
    if (options.time_minutes > 0) script += fmt::format("#SBATCH --time={}\n", options.time_minutes);
    for (const auto& arg : options.sbatch_args) script += "#SBATCH " + arg + "\n";
    std::vector<std::string> argv{kernelpro.string(), "bench", bench.tasks_dir};
    argv.insert(argv.end(), bench.forwarded.begin(), bench.forwarded.end());
    script += "exec " + join_command_line(argv) + fmt::format(" --shard \"$SLURM_ARRAY_TASK_ID/{}\"", shards) + " --out " +
              shell_quote((out / "shard-").string()) + "\"$SLURM_ARRAY_TASK_ID\"\n";
    return script;
}

int submit_bench_array(const SlurmBench& bench, const SlurmOptions& options) {
    if (!find_executable("sbatch")) {
        std::cerr << "error: --slurm: sbatch not found on PATH (Slurm's client; on a machine without Slurm run bench without --slurm)\n";
        return kExitEnvironment;
    }
    auto kernelpro = running_executable();
    if (!kernelpro) {
        std::cerr << "error: --slurm: cannot tell where this kernelpro is (/proc/self/exe), for the array's command\n";
        return kExitEnvironment;
    }
    std::error_code ec;
    fs::create_directories(bench.out_dir, ec);
    if (ec) {
        std::cerr << "error: --out " << bench.out_dir.string() << ": " << ec.message() << "\n";
        return kExitEnvironment;
    }
    if (std::string previous = last_job(bench.out_dir); !previous.empty() && job_queued(previous)) {
        std::cerr << fmt::format("error: job array {} of {} is still queued or running (wait for it, or scancel {} first)\n", previous,
                                 bench.out_dir.string(), previous);
        return kExitUsage;
    }
    int shards = options.shards > 0 ? options.shards : static_cast<int>(bench.problems);
    shards = std::max(1, std::min(shards, static_cast<int>(bench.problems)));  // no empty shards
    const fs::path script_path = bench.out_dir / "bench.sbatch";
    if (auto written = write_file_atomically(script_path, bench_array_script(bench, options, shards, *kernelpro, fs::current_path()));
        !written) {
        std::cerr << "error: " << written.error().message << "\n";
        return kExitEnvironment;
    }
    auto submitted = run_process({"sbatch", "--parsable", script_path.string()}, within(std::chrono::seconds(120)));
    if (!submitted.ok() || !submitted->succeeded()) {
        std::string why = submitted.ok() ? submitted->stderr_text : submitted.error().message;
        while (!why.empty() && why.back() == '\n') why.pop_back();
        std::cerr << "error: sbatch refused " << script_path.string() << ": " << (why.empty() ? submitted->describe_failure() : why) << "\n";
        return kExitEnvironment;
    }
    std::string job = submitted->stdout_text.substr(0, submitted->stdout_text.find_first_of(";\n"));
    (void)write_file_atomically(bench.out_dir / "slurm-job.txt", job + "\n");
    std::cout << fmt::format("submitted job array {} ({} shards of {} problems): {}\n", job, shards, bench.problems, script_path.string());
    if (!options.wait) {
        std::cout << "merge the shards when it ends: kernelpro bench merge " << bench.out_dir.string() << "\n";
        return kExitOk;
    }
    while (job_queued(job)) std::this_thread::sleep_for(std::chrono::seconds(1));
    auto merged = merge_shards(shard_folders(bench.out_dir));
    if (!merged) {
        std::cerr << fmt::format("error: job array {} ended without results: {} (logs: {}/slurm-{}_*.out)\n", job, merged.error().message,
                                 bench.out_dir.string(), job);
        return kExitEnvironment;
    }
    write_merged_table(*merged, bench.out_dir);
    if (!merged->missing.empty()) {
        std::cerr << fmt::format("error: job array {} ended with work unfinished ({}; logs: {}/slurm-{}_*.out): submit the same command "
                                 "again to resume it\n",
                                 job, merged->missing.front() + (merged->missing.size() > 1 ? ", ..." : ""), bench.out_dir.string(), job);
        return kExitEnvironment;
    }
    return kExitOk;
}

}  // namespace kp::cli
