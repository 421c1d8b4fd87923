// The bench results table: fast_p (KernelBench's definition: the share of ALL problems that are
// correct and more than p times faster), geometric means over correct problems, per level and
// overall, with and without the problems flagged degenerate.
#include <gtest/gtest.h>

#include <cmath>

#include "kernelbench/bench_table.h"

using namespace kp::kernelbench;

namespace {
BenchProblemResult row(const std::string& task, int level, bool correct, double eager_ms, double compile_ms, double best_ms,
                       bool degenerate = false) {
    BenchProblemResult r;
    r.task = task;
    r.level = level;
    r.correct = correct;
    r.status = correct ? "correct" : "incorrect";
    r.degenerate = degenerate;
    if (eager_ms > 0) r.eager_seconds = eager_ms * 1e-3;
    if (compile_ms > 0) r.compile_seconds = compile_ms * 1e-3;
    if (best_ms > 0) r.best_seconds = best_ms * 1e-3;
    return r;
}

const GroupSummary& group(const std::vector<GroupSummary>& groups, const std::string& name, bool without) {
    for (const auto& g : groups)
        if (g.group == name && g.without_degenerate == without) return g;
    throw std::runtime_error("no group " + name);
}
}  // namespace

TEST(BenchTable, FastPAndGeomeanPerLevel) {
    std::vector<BenchProblemResult> rows{
        row("a", 1, true, 4.0, 2.0, 1.0),        // 4x eager, 2x compile
        row("b", 1, true, 1.0, 1.5, 1.0),        // 1x eager (not > 1), 1.5x compile
        row("c", 1, false, 1.0, 1.0, 0),         // wrong: counts in the totals only
        row("d", 2, true, 3.0, 0, 1.0, true),    // degenerate, no compile time
    };
    auto groups = summarize_bench(rows);
    const auto& l1 = group(groups, "level 1", false);
    EXPECT_EQ(l1.problems, 3);
    EXPECT_EQ(l1.correct, 2);
    EXPECT_EQ(l1.fast_eager[0].count, 2);  // fast_0 = correct
    EXPECT_EQ(l1.fast_eager[1].count, 1);  // > 1x: only a
    EXPECT_EQ(l1.fast_eager[3].count, 1);  // > 2x: a (4x)
    EXPECT_EQ(l1.fast_compile[2].count, 2);  // > 1.2x: a (2x) and b (1.5x)
    EXPECT_EQ(l1.fast_compile[3].count, 0);  // > 2x: none (a is exactly 2x)
    EXPECT_EQ(l1.fast_eager[1].total, 3);
    ASSERT_TRUE(l1.geomean_eager);
    EXPECT_NEAR(*l1.geomean_eager, 2.0, 1e-12);  // sqrt(4 * 1)
    EXPECT_EQ(l1.geomean_eager_count, 2);
    const auto& all = group(groups, "all", false);
    EXPECT_EQ(all.problems, 4);
    EXPECT_EQ(all.geomean_eager_count, 3);
    EXPECT_NEAR(*all.geomean_eager, std::cbrt(4.0 * 1.0 * 3.0), 1e-12);
    EXPECT_EQ(all.geomean_compile_count, 2);
    const auto& clean = group(groups, "all", true);
    EXPECT_EQ(clean.problems, 3);  // d is left out
    EXPECT_EQ(clean.geomean_eager_count, 2);
}

TEST(BenchTable, MarkdownAndJsonCarryTheCounts) {
    std::vector<BenchProblemResult> rows{row("kb_l1_019_ReLU", 1, true, 3.0, 2.9, 2.8), row("kb_l1_023_Softmax", 1, false, 5, 0, 0, true)};
    rows[1].status = "incorrect";
    rows[1].reason = "output 'output': 12 of 100 elements | outside tolerance";
    std::string md = bench_table_markdown(rows, "bench");
    EXPECT_NE(md.find("| kb_l1_019_ReLU | 1 | correct | 3 | 2.9 | 2.8 | 1.07x | 1.04x |"), std::string::npos) << md;
    EXPECT_NE(md.find("incorrect: output 'output': 12 of 100 elements   outside tolerance (degenerate)"), std::string::npos) << md;
    EXPECT_NE(md.find("| level 1 | 2 | 1 | 1/2 | 1/2 |"), std::string::npos) << md;
    EXPECT_NE(md.find("| all without degenerate | 1 | 1 |"), std::string::npos) << md;
    auto j = bench_table_json(rows, "level1", "2026-12-01T20:00:00Z");
    EXPECT_EQ(j["schema"], "kernelpro.bench/1");
    EXPECT_EQ(j["suite"], "level1");  // kernelpro report's fields (docs/report.md)
    EXPECT_EQ(j["problems"][0]["name"], "kb_l1_019_ReLU");
    EXPECT_EQ(j["problems"][0]["speedup_vs_eager"].get<double>(), 3.0 / 2.8);
    EXPECT_TRUE(j["problems"][1]["kernel_seconds"].is_null());
    bool found = false;
    for (const auto& g : j["groups"])
        if (g["group"] == "level 1" && !g["without_degenerate"].get<bool>()) {
            found = true;
            EXPECT_EQ(g["fast_p_eager"][1]["count"], 1);
            EXPECT_EQ(g["fast_p_eager"][1]["total"], 2);
            EXPECT_DOUBLE_EQ(g["fast_p_eager"][1]["rate"].get<double>(), 0.5);
        }
    EXPECT_TRUE(found);
}

TEST(BenchTable, RowsSurviveTheManifest) {
    auto r = row("t", 2, true, 2.0, 1.0, 0.5);
    r.tokens = 1200;
    r.cost_usd = 0.25;
    r.gpu_seconds = 12.5;
    auto back = BenchProblemResult::from_json(r.to_json());
    EXPECT_EQ(back.to_json(), r.to_json());
}
