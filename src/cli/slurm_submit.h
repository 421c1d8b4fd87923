// `kernelpro bench --slurm`: one Slurm job array for one bench, one array task per shard of its
// problems. Each array task runs `kernelpro bench TASKS --shard I/K --out OUT/shard-I` with the
// bench's other options, so each shard has its own run store and manifest and a re-submitted
// shard resumes. The batch script is written to OUT/bench.sbatch, readable and re-submittable by
// hand. Slurm does the scheduling; kernelpro only writes the script, calls sbatch and, with
// --wait, polls squeue until the array is gone and merges the shards.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kp::cli {

struct SlurmOptions {
    std::string partition;
    int gpus_per_task = 1;  // 0: ask for no GPU (a CPU-only cluster, the CI's stand-in evaluations)
    int shards = 0;         // 0: one shard per problem
    int time_minutes = 0;   // 0: the partition's default limit
    std::vector<std::string> sbatch_args;  // extra #SBATCH lines, as given
    bool wait = false;
};

struct SlurmBench {
    std::string tasks_dir;                // as given (the job runs in this directory)
    std::filesystem::path out_dir;
    size_t problems = 0;
    std::vector<std::string> forwarded;   // the bench's other options, passed to every shard
};

// The options given on `cmd`'s command line, as arguments again (flags once per use), leaving out
// positionals and the long names in `leave_out`: what every shard of the array is run with.
std::vector<std::string> given_options(const CLI::App& cmd, const std::vector<std::string>& leave_out);

// The batch script of the array (shards: its number of array tasks).
std::string bench_array_script(const SlurmBench& bench, const SlurmOptions& options, int shards,
                               const std::filesystem::path& kernelpro, const std::filesystem::path& working_directory);

// Writes the script, submits it and prints the job id; with --wait, waits and merges into OUT.
// Exit codes: 0 submitted (with --wait: and every problem finished), 2 usage (an array of this
// folder still queued or running), 3 the environment (no sbatch, sbatch refused, with --wait:
// problems the array did not finish).
int submit_bench_array(const SlurmBench& bench, const SlurmOptions& options);

}  // namespace kp::cli
