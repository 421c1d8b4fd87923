// The results table of `kernelpro bench` (OUT/results.md and OUT/results.json): per problem,
// correct or why not, the eager / compile / best times, speedups, % of the roofline floor,
// evaluations, tokens, dollars and GPU-seconds; per level (and over all), the correctness rate,
// fast_p for p in {0, 1, 1.2, 2} against eager and against compile, and the geometric-mean speedup
// over correct problems, each with the counts behind it, once with every problem and once without
// the problems flagged degenerate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kp::kernelbench {

struct BenchProblemResult {
    std::string task;
    int level = 0;  // 0: not a KernelBench problem
    bool degenerate = false;
    bool correct = false;
    std::string status;  // "correct", a failure class, or why it did not run ("no starting kernel")
    std::string reason;
    std::optional<double> eager_seconds, compile_seconds, best_seconds;  // medians
    std::optional<double> roofline_fraction;                            // floor / best
    int64_t evaluations = 0;
    int64_t tokens = 0;
    double cost_usd = 0;
    double gpu_seconds = 0;
    int64_t run_id = 0;
    std::string device;  // the GPU the final evaluation ran on

    std::optional<double> speedup_over_eager() const;
    std::optional<double> speedup_over_compile() const;
    nlohmann::json to_json() const;
    static BenchProblemResult from_json(const nlohmann::json& j);
};

// KernelBench's fast_p: the share of ALL problems of the group that are correct and more than p
// times faster than the baseline (fast_0 is the correctness rate).
struct FastP {
    double p = 0;
    int count = 0;   // problems counted
    int total = 0;   // problems in the group
    int timed = 0;   // problems with a time for this baseline
};

struct GroupSummary {
    std::string group;  // "level 1", ..., "all"
    bool without_degenerate = false;
    int problems = 0, correct = 0;
    std::vector<FastP> fast_eager, fast_compile;
    std::optional<double> geomean_eager, geomean_compile;
    int geomean_eager_count = 0, geomean_compile_count = 0;
};

std::vector<GroupSummary> summarize_bench(const std::vector<BenchProblemResult>& results);
std::string bench_table_markdown(const std::vector<BenchProblemResult>& results, const std::string& title);
// kernelpro report reads this file (docs/report.md): suite, device, created_at, problems.
nlohmann::json bench_table_json(const std::vector<BenchProblemResult>& results, const std::string& suite = "",
                                const std::string& created_at = "");

}  // namespace kp::kernelbench
