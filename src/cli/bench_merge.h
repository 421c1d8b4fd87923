// `kernelpro bench merge`: the shards of one bench (OUT/shard-I folders of `bench --slurm`, or
// folders of `bench --shard I/K`) folded into one results table, the same table the unsharded
// bench writes for the same problems (rows in the same order), and what is still missing: shards
// never started, problems unfinished.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/result.h"
#include "kernelbench/bench_table.h"

namespace kp::cli {

struct MergedBench {
    std::string title, suite;
    std::vector<kernelbench::BenchProblemResult> rows;  // finished problems, in the unsharded order
    std::vector<std::string> missing;                    // one line each: "shard 1: softmax (unfinished)"
    size_t problems = 0;                                 // planned, over every shard seen
};

// The shard folders of `dir`: dir itself when it holds a bench.json, else its shard-* folders.
std::vector<std::filesystem::path> shard_folders(const std::filesystem::path& dir);

// Errors when a folder is not a shard or the shards are not of one bench.
Result<MergedBench> merge_shards(const std::vector<std::filesystem::path>& shard_dirs);

// OUT/results.md and results.json of the merge, and on stdout the table, its path and the
// missing lines.
void write_merged_table(const MergedBench& merged, const std::filesystem::path& out);

// `bench merge` under `bench`; its handler. Exit codes: 0 the table was written (missing
// problems are listed), 2 a folder is not a shard of one bench, 3 the table cannot be written.
Handler register_bench_merge(CLI::App& bench);

}  // namespace kp::cli
