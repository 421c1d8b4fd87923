// Which problems a `kernelpro bench` runs: the task folders under TASKS_DIR (sorted by name,
// narrowed by --tasks) and, with --shard I/K, the I-th of K deterministic shares of them (folder j
// of the sorted list goes to shard j mod K), so K machines (a Slurm job array) split one bench.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace kp::cli {

struct ShardSpec {
    int index = 0;  // 0 .. count-1 (Slurm's SLURM_ARRAY_TASK_ID)
    int count = 1;
    bool whole() const { return count == 1; }
};

// "I/K" with 0 <= I < K; the error says what was expected.
Result<ShardSpec> parse_shard(const std::string& text);

// The task folders (with task.toml) under root, sorted; `only`: comma-separated folder names.
std::vector<std::filesystem::path> task_folders(const std::filesystem::path& root, const std::string& only);

// The folders of one shard, in their sorted order.
std::vector<std::filesystem::path> shard_of(const std::vector<std::filesystem::path>& folders, const ShardSpec& shard);

}  // namespace kp::cli
