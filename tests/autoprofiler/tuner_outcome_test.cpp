// The tuner-outcome objective: the built-in tuner, told the tree's feedback on the start kernel,
// searches a recorded table. On a table made here the feedback decides the first move; on the
// H200 tables (tests/fixtures/h200-tuning) every start loads and the simulation stays in bounds.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "../diagnose/profile_fixture.h"
#include "../store/temp_store.h"
#include "autoprofiler/named_trees.h"
#include "autoprofiler/single_shot_rewrite.h"
#include "autoprofiler/tuner_outcome.h"
#include "autoprofiler/tuning_record.h"
#include "recorded_records.h"
#include "llm/scripted_chat_client.h"
#include "search/proposers/parameter_space.h"

namespace kp::autoprofiler {
namespace {

const char* kSpaceSource = R"(// kp:tune BLOCK=128,256,512
// kp:tune VEC=1,2,4
// kp:tune UNROLL=1,2,4
// kp:tune GRID=264,528,1056
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef VEC
#define VEC 2
#endif
#ifndef UNROLL
#define UNROLL 2
#endif
#ifndef GRID
#define GRID 528
#endif
)";

search::EvaluationOutcome timed(double seconds) {
    search::EvaluationOutcome o;
    o.median_seconds = seconds;
    return o;
}

// Every neighbour of the start (BLOCK=256,GRID=528,UNROLL=2,VEC=2) at the start's 100 us, except
// VEC=4 at 50 us; `with_vec4 = false` leaves that point out of the table.
KernelRecord synthetic_kernel(bool with_vec4 = true) {
    auto table = std::make_shared<TuningTable>();
    table->task = "synthetic";
    table->source = kSpaceSource;
    table->start = {{"BLOCK", "256"}, {"GRID", "528"}, {"UNROLL", "2"}, {"VEC", "2"}};
    auto space = parse_tunables(table->source);
    EXPECT_TRUE(space.ok());
    for (const auto& point : search::enumerate_points(*space)) table->by_point[search::point_text(point)] = timed(100e-6);
    const std::string vec4 = "BLOCK=256,GRID=528,UNROLL=2,VEC=4";
    if (with_vec4) table->by_point[vec4] = timed(50e-6);
    else table->by_point.erase(vec4);
    KernelRecord k;
    k.name = "synthetic@start";
    k.tuning = table;
    return k;
}

analysis::Finding narrow_accesses() {
    analysis::Finding f;
    f.tool = "narrow_global_access";
    f.estimated_gain = 0.5;
    f.remedies = analysis::wider_accesses(analysis::Rewrite::vectorize_accesses);
    return f;
}

TEST(TunerOutcome, AFindingThatPointsAtAParameterDecidesTheFirstMove) {
    const auto kernel = synthetic_kernel();
    const auto told = simulate_tuner(kernel, {narrow_accesses()}, 1);
    ASSERT_EQ(told.evaluations, 1);
    ASSERT_EQ(told.tried.size(), 1u);
    EXPECT_EQ(told.tried[0], "BLOCK=256,GRID=528,UNROLL=2,VEC=4");
    EXPECT_DOUBLE_EQ(told.speedup(), 2.0);
    EXPECT_EQ(told.best_point, "BLOCK=256,GRID=528,UNROLL=2,VEC=4");

    // The objective scores the tree's shown findings: told beats not told on this table.
    TreeOutcome with, without;
    with.findings = {narrow_accesses()};
    auto objective = tuner_outcome(1, 0.0);
    const auto scored_with = objective->score({kernel}, {with}, Budget{});
    const auto scored_without = objective->score({kernel}, {without}, Budget{});
    EXPECT_EQ(scored_with.tuned, 1);
    EXPECT_DOUBLE_EQ(scored_with.tuner_speedup, 2.0);
    EXPECT_DOUBLE_EQ(scored_with.value, 1.0);  // log2 of the speedup
    EXPECT_LE(scored_without.tuner_speedup, scored_with.tuner_speedup);
    EXPECT_GT(scored_with.value, scored_without.value);
}

TEST(TunerOutcome, ItsEvaluationsAreBoundedNewAndAMissingPointFails) {
    const auto kernel = synthetic_kernel(/*with_vec4=*/false);
    const auto one = simulate_tuner(kernel, {narrow_accesses()}, 1);
    ASSERT_EQ(one.tried.size(), 1u);
    EXPECT_EQ(one.tried[0], "BLOCK=256,GRID=528,UNROLL=2,VEC=4");
    EXPECT_DOUBLE_EQ(one.speedup(), 1.0);  // the point is not in the table: a failed evaluation
    EXPECT_EQ(one.best_point, search::point_text(kernel.tuning->start));

    const auto six = simulate_tuner(kernel, {narrow_accesses()}, 6);
    EXPECT_EQ(six.evaluations, 6);
    std::set<std::string> seen(six.tried.begin(), six.tried.end());
    EXPECT_EQ(seen.size(), six.tried.size()) << "a point was evaluated twice";
    EXPECT_FALSE(seen.count(search::point_text(kernel.tuning->start)));

    // Deterministic: the same kernel and feedback give the same walk.
    EXPECT_EQ(simulate_tuner(kernel, {}, 6).tried, simulate_tuner(kernel, {}, 6).tried);
    // No table: nothing to simulate, and the objective does not score the kernel.
    KernelRecord untuned;
    EXPECT_EQ(simulate_tuner(untuned, {}, 3).evaluations, 0);
    EXPECT_EQ(tuner_outcome()->score({untuned}, {TreeOutcome{}}, Budget{}).tuned, 0);
}

const std::string kTuningManifest = testing::kSource + "/tests/fixtures/h200-tuning/manifest.toml";

TEST(TuningRecords, TheRecordedH200StartsLoadAndTheTunerStaysInItsTable) {
    if (!testing::have_nvcc()) GTEST_SKIP() << "no nvcc: the tuning kernels cannot be built";
    if (!testing::have_sass_tools()) GTEST_SKIP() << "no nvdisasm/cuobjdump (scripts/install-nvidia-tools)";
    auto records = load_tuning_records(kTuningManifest);
    ASSERT_TRUE(records) << records.error().message;
    ASSERT_EQ(records->size(), 17u);
    auto full = resolve_tree("full");
    ASSERT_TRUE(full);
    for (const auto& k : *records) {
        ASSERT_TRUE(k.tuning) << k.name;
        EXPECT_FALSE(k.signals.empty()) << k.name;
        EXPECT_TRUE(k.signals.count("static.registers")) << k.name;
        const auto outcome = evaluate_tree(*full, k, testing::h200_costs(), Budget{}, false);
        const auto run = simulate_tuner(k, outcome.findings, 4);
        EXPECT_EQ(run.evaluations, 4) << k.name;
        EXPECT_GE(run.speedup(), 1.0) << k.name;
        ASSERT_TRUE(k.tuning->by_point.count(run.best_point)) << k.name;
        EXPECT_DOUBLE_EQ(*k.tuning->by_point.at(run.best_point).median_seconds, run.best_seconds) << k.name;
    }
    // The recorded gelu start: at its #define defaults, 315 us on the H200.
    const auto& gelu = records->front();
    EXPECT_EQ(gelu.name, "gelu_f16@default");
    EXPECT_EQ(search::point_text(gelu.tuning->start), "BLOCK=256,UNROLL=2,VEC=8");

    // The single-shot-rewrite objective replayed on real verdicts: the scripted writer's gelu
    // rewrites given the full tree's feedback, judged on the GPU (the H200, `scripts/gpu-check
    // rewrite`, 2026-12-07): each correct, scoring the judged start over the judged rewrite (the
    // start is the verdict with parameters, the rewrite states its own).
    const std::string verdicts = testing::kSource + "/tests/fixtures/h200-tuning/rewrite_gelu.h200.verdicts.jsonl";
    std::map<std::string, std::pair<double, double>> judged;  // kernel -> (start, rewrite) seconds
    std::ifstream lines(verdicts);
    for (std::string line; std::getline(lines, line);) {
        auto v = nlohmann::json::parse(line);
        const std::string key = v["key"];
        auto& [start, rewrite] = judged[v["kernel"].get<std::string>()];
        (key.back() == '|' ? rewrite : start) = v["median_seconds"].get<double>();
    }
    auto client = llm::ScriptedChatClient::open(testing::kSource + "/examples/llm-scripts/rewrite_gelu.jsonl");
    ASSERT_TRUE(client) << client.error().message;
    auto agents = llm::LlmAgents::create(*client);
    ASSERT_TRUE(agents) << agents.error().message;
    auto judge = recorded_rewrite_judge(verdicts);
    ASSERT_TRUE(judge) << judge.error().message;
    SingleShotRewrite objective(std::make_shared<const llm::LlmAgents>(std::move(*agents)), *judge);
    for (size_t i = 0; i < 2; ++i) {
        const auto& k = (*records)[i];
        ASSERT_EQ(k.name.rfind("gelu_f16@", 0), 0u) << k.name;
        auto rewritten = objective.rewrite(k, evaluate_tree(*full, k, testing::h200_costs(), Budget{}).feedback);
        ASSERT_TRUE(rewritten) << rewritten.error().message;
        EXPECT_TRUE(rewritten->correct) << k.name << ": " << rewritten->message;
        ASSERT_TRUE(judged.count(k.name)) << k.name;
        EXPECT_NEAR(rewritten->speedup, judged[k.name].first / judged[k.name].second, 1e-9) << k.name;
        EXPECT_GE(rewritten->speedup, 0.99) << k.name;
    }
}

TEST(TuningRecords, AStartTheTableDoesNotHoldIsAnErrorNamingTheLine) {
    test_support::TempDirectory dir;
    const std::string fixtures = testing::kSource + "/tests/fixtures/h200-tuning/";
    std::ofstream(dir.path() / "manifest.toml") << "root = \"" << testing::kSource << "\"\n\n[[kernel]]\nname = \"gelu@odd\"\n"
                                                << "task = \"tasks/gelu_f16\"\ncandidate = \"tasks/gelu_f16/candidates/tuned.cu\"\n"
                                                << "start = \"BLOCK=999\"\ntable = \"" << fixtures << "gelu_f16.run.json\"\n"
                                                << "counters = \"" << fixtures << "gelu_f16__default.counters.json\"\n";
    auto records = load_tuning_records(dir.path() / "manifest.toml");
    ASSERT_FALSE(records);
    EXPECT_NE(records.error().message.find("manifest.toml:3: kernel gelu@odd: the table has no correct timing of the start point BLOCK=999"),
              std::string::npos)
        << records.error().message;

    std::ofstream(dir.path() / "bad.run.json") << "{\"schema\": \"something else\"}";
    auto table = load_run_table(dir.path() / "bad.run.json");
    ASSERT_FALSE(table);
    EXPECT_NE(table.error().message.find("not a run"), std::string::npos);
    EXPECT_FALSE(load_run_table(dir.path() / "missing.run.json"));
}

}  // namespace
}  // namespace kp::autoprofiler
