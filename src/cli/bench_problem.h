// One problem of `kernelpro bench`: its starting kernel (--from-dir, the task's own, or the LLM
// writer's first version), the search (`optimize`'s, resumed when the run store holds an unfinished
// run of it), the final evaluation against every baseline, and the row of the results table.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <vector>
#include <mutex>
#include <optional>
#include <string>

#include "cli/llm_option.h"
#include "eval/gpu_pool.h"
#include "eval/sample_statistics.h"
#include "kernelbench/bench_table.h"

namespace kp::search {
class SearchDriver;
}

namespace kp::cli {

struct BenchSettings {
    std::filesystem::path out_dir;
    std::filesystem::path store_path;
    std::filesystem::path from_dir;  // starting candidates: FROM/<task>.cu or FROM/<task>/*.cu
    LlmOptionValues llm;             // spec "script:DIR" (a folder): FROM DIR/<task>.jsonl per problem
    std::int64_t budget_evals = 8;
    double budget_seconds = 0;
    std::uint64_t seed = 1;
    int trials = 3;
    double max_time = 1.0, min_time = StoppingRule{}.min_seconds;
    bool compile_baseline = true;
    // Time torch.compile in every evaluation of the search, not only in a final one: with a budget
    // of one evaluation this saves a worker per problem (the best's own report has every time).
    bool baselines_in_search = false;
    bool profile = false;  // optimize's --profile: findings (typed remedies) for the tuner and the LLM
    std::string profile_tree;  // optimize's --profile-tree (implies profile)
    bool quiet = false;
};

struct BenchProblem {
    std::filesystem::path task_dir;
    std::optional<std::int64_t> resume_run;  // an unfinished run of this problem in the store
};

// Shared by the problems running at once: the GPU pool (one worker per GPU at a time), and a stop request.
struct BenchShared {
    GpuPool* pool = nullptr;
    std::atomic<bool> stop{false};
    std::mutex drivers_mutex;
    std::vector<search::SearchDriver*> drivers;  // running now, told to stop on Ctrl-C
};

// Never fails: whatever goes wrong is the row's status and reason. `on_run` gets the run id as
// soon as the run exists (for the bench manifest).
kernelbench::BenchProblemResult run_bench_problem(const BenchProblem& problem, const BenchSettings& settings, BenchShared& shared,
                                                  const std::function<void(std::int64_t)>& on_run);

}  // namespace kp::cli
