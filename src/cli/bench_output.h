// What a `kernelpro bench` output folder holds besides the problems' own folders: OUT/bench.json
// (per problem its run and, once finished, its row; and for a shard, which problems it was given),
// the file that makes bench resumable and shards mergeable; and OUT/results.md / results.json.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernelbench/bench_table.h"

namespace kp {
class GpuPool;
}

namespace kp::cli {

// What a bench (or one shard of it) was asked to do: the title and suite of its table, and the
// problems (task folder names) it owns. Written once at the start, so `bench merge` can tell a
// problem that is unfinished from one that was never started.
struct BenchPlan {
    std::string tasks_dir;  // as given on the command line: the table's title names it
    std::string suite;      // the tasks folder's name (results.json)
    int shard_index = 0, shard_count = 1;
    std::vector<std::string> problems;
    nlohmann::json to_json() const;
    static std::optional<BenchPlan> from_json(const nlohmann::json& j);
};

class BenchManifest {
public:
    explicit BenchManifest(std::filesystem::path path);
    std::optional<kernelbench::BenchProblemResult> finished(const std::string& folder) const;
    std::optional<std::int64_t> run_of(const std::string& folder) const;
    std::optional<BenchPlan> plan() const;
    void set_plan(const BenchPlan& plan);
    void set_run(const std::string& folder, std::int64_t run);
    // Interrupted or failed for reasons that are not the kernel's: the row is not kept, the next
    // run tries again.
    void set_result(const std::string& folder, const kernelbench::BenchProblemResult& row);

private:
    void save();
    std::filesystem::path path_;
    nlohmann::json data_;
    mutable std::mutex mutex_;
};

// The table's title, the same for a bench, one of its shards and their merge.
std::string bench_table_title(const std::string& tasks_dir, size_t problems);

// OUT/results.md and OUT/results.json (with the time it was written); with a pool, its GPUs and
// throughput too (this invocation's: a resumed bench reports its own session).
void write_bench_table(const std::filesystem::path& out, const std::vector<kernelbench::BenchProblemResult>& rows,
                       const std::string& title, const std::string& suite, const GpuPool* pool = nullptr);

}  // namespace kp::cli
