// Evaluating trees on the recorded corpus: the walk, the budget, determinism and the feedback.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "analysis/tool_registry.h"
#include "autoprofiler/named_trees.h"
#include "autoprofiler/objective.h"
#include "autoprofiler/profile_cost.h"
#include "autoprofiler/profile_walk.h"
#include "autoprofiler/tree_evaluation.h"
#include "../store/temp_store.h"
#include "recorded_records.h"

using namespace kp::autoprofiler;
using kp::testing::h200_costs;
using kp::testing::record_named;
using kp::testing::recorded_records;

namespace {

// Spills first (a static fact, free), then the roofline class: the spilling kernel is memory-bound
// (its spills go to DRAM), so a class test first would send it to the memory tools.
const char* kByClass = R"(format = "kernelpro.profiling-tree/1"
root = "start"

[node.start]
signal = "static.local_bytes"
threshold = 1
above = "spilling"
below = "by_class"

[node.spilling]
actions = ["tool:register_spills"]

[node.by_class]
collect = ["counters:roofline"]
signal = "roofline.memory_bound"
threshold = 0.5
above = "memory"
below = "rest"

[node.memory]
actions = ["tool:narrow_global_access", "tool:uncoalesced_global_access"]

[node.rest]
actions = ["tool:small_grid_tail"]
)";

}  // namespace

TEST(TreeEvaluation, TheFullTreeFindsEveryLabelledFlaw) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto full = resolve_tree("full");
    ASSERT_TRUE(full);
    // Without a budget, today's full plan names every corpus kernel's flaw among the three findings
    // it shows, and healthy kernels stay quiet (RecordedCorpus proves the rank with class gating).
    for (const auto& k : *recorded_records()) {
        auto o = evaluate_tree(*full, k, h200_costs(), {});
        EXPECT_TRUE(is_hit(k, o)) << k.name << " (expect " << k.expect << ")\n" << o.feedback;
        EXPECT_EQ(o.taken.size(), action_catalogue().size());
        EXPECT_TRUE(o.dropped.empty());
    }
}

TEST(TreeEvaluation, WalksTheTreeBySignals) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto tree = parse_tree(kByClass, "by_class.toml");
    ASSERT_TRUE(tree) << tree.error().message;
    const auto* spills = record_named("register_spills");
    const auto* narrow = record_named("narrow_scalar_copy");
    ASSERT_TRUE(spills && narrow);
    ASSERT_TRUE(spills->signals.count("static.local_bytes"));
    EXPECT_GT(spills->signals.at("static.local_bytes"), 0);
    auto o = evaluate_tree(*tree, *spills, h200_costs(), {});
    EXPECT_EQ(o.leaf, "spilling");
    EXPECT_EQ(o.path, (std::vector<std::string>{"start", "spilling"}));
    EXPECT_TRUE(is_hit(*spills, o)) << o.feedback;
    EXPECT_NE(o.feedback.find("spill"), std::string::npos) << o.feedback;
    // Only the leaf's tools speak: no finding from a tool the leaf did not take.
    for (const auto& f : o.findings) EXPECT_EQ(f.tool, "register_spills");
    // The spill tool alone is taken, but a tree that tests pays the roofline's collection first
    // (as a live profile does), then the tool's counters in a follow-up in the same worker.
    const auto& costs = h200_costs();
    EXPECT_EQ(o.taken, (std::vector<std::string>{"tool:register_spills"}));
    const auto forced = profile_cost({}, CollectionShape::roofline_first, costs);
    EXPECT_EQ(o.cost, profile_cost(o.taken, CollectionShape::roofline_first, costs));
    EXPECT_GT(o.cost.passes, forced.passes);
    EXPECT_NEAR(o.cost.seconds - forced.seconds,
                costs.collection_seconds + (o.cost.passes - forced.passes) * costs.seconds_per_pass, 1e-9);
    // The copy has no local memory: the class decides, and the roofline is collected on the way.
    auto copy = evaluate_tree(*tree, *narrow, h200_costs(), {});
    EXPECT_EQ(copy.path, (std::vector<std::string>{"start", "by_class", "memory"}));
    EXPECT_TRUE(is_hit(*narrow, copy)) << copy.feedback;
    EXPECT_EQ(copy.taken.front(), kRooflineAction);
}

// What a live profile with a tree counts in stage 2 (leaf_choice, before the tools have run) is
// what the walk afterwards takes: the same leaf from the same signals, the static ones read from
// the first collection's reply.
TEST(TreeEvaluation, StageTwoCountsForTheToolsTheWalkTakes) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto tree = parse_tree(kByClass, "by_class.toml");
    ASSERT_TRUE(tree) << tree.error().message;
    TreeChoice choice{"by_class.toml", *tree, h200_costs(), {}};
    std::set<std::vector<std::string>> leaves_seen;
    for (const auto& k : *recorded_records()) {
        const std::string reply = kp::testing::kCorpusFixtures + k.name + ".counters.json";
        kp::analysis::ProfileData data;
        data.kernel_name = k.diagnosis.kernel_name;
        auto chosen = leaf_choice(choice, data, k.diagnosis.roofline, reply).tools;
        std::vector<std::string> walked;
        for (const auto& action : evaluate_tree(*tree, k, h200_costs(), {}).taken)
            if (auto tool = tool_of_action(action); !tool.empty()) walked.push_back(tool);
        EXPECT_EQ(chosen, walked) << k.name;
        leaves_seen.insert(chosen);
    }
    // The static test decides for the spilling kernel, the class for the others: all three leaves.
    EXPECT_EQ(leaves_seen.size(), 3u);
    const auto* spills = record_named("register_spills");
    ASSERT_TRUE(spills);
    kp::analysis::ProfileData data;
    EXPECT_EQ(leaf_choice(choice, data, spills->diagnosis.roofline, kp::testing::kCorpusFixtures + "register_spills.counters.json").tools,
              (std::vector<std::string>{"register_spills"}));
    // Without the reply the static signal is unknown: the walk goes below, to the class.
    EXPECT_NE(leaf_choice(choice, data, spills->diagnosis.roofline, "/nonexistent/reply.json").tools,
              (std::vector<std::string>{"register_spills"}));
}

// A tree without a test knows its tools before anything is counted: the usual plan collects them
// (in one run when they fit); a tree that tests signals chooses stage 2's tools per kernel.
TEST(TreeEvaluation, OnlyATreeThatTestsChoosesStageTwoPerKernel) {
    auto full = resolve_tree("full");
    ASSERT_TRUE(full);
    kp::diagnose::ProfileOptions options;
    collect_by_tree({"full", *full, h200_costs(), {}}, options, "reply.json");
    EXPECT_FALSE(options.stage2_choice);
    EXPECT_EQ(options.tools, kp::analysis::default_tool_registry().names());
    auto tree = parse_tree(kByClass, "by_class.toml");
    ASSERT_TRUE(tree) << tree.error().message;
    kp::diagnose::ProfileOptions chosen;
    collect_by_tree({"by_class.toml", *tree, h200_costs(), {}}, chosen, "reply.json");
    EXPECT_TRUE(chosen.stage2_choice);
    EXPECT_EQ(chosen.tools, kp::analysis::default_tool_registry().names());  // every tool diagnoses what was counted
    auto spills = one_leaf_tree("spills", {"tool:register_spills"});
    kp::diagnose::ProfileOptions one;
    collect_by_tree({"spills", spills, h200_costs(), {}}, one, "reply.json");
    EXPECT_FALSE(one.stage2_choice);
    EXPECT_EQ(one.tools, (std::vector<std::string>{"register_spills"}));
    // PC sampling runs only for a tree that takes it somewhere (the full plan does, `spills` does not).
    EXPECT_TRUE(options.collectors.count("pcsampling"));
    EXPECT_FALSE(one.collectors.count("pcsampling"));
    EXPECT_FALSE(chosen.collectors.count("pcsampling"));
    // The call's trace only for a leaf whose tools read it (the full plan's launch_overhead does).
    EXPECT_TRUE(options.collectors.count("timeline"));
    EXPECT_FALSE(one.collectors.count("timeline"));
    EXPECT_TRUE(chosen.collectors.count("timeline"));  // a tree that tests: stage 2 traces when a leaf takes it
    // `none` runs nothing on the GPU (the walk charges it nothing); `roofline` counts the roofline.
    kp::diagnose::ProfileOptions nothing;
    collect_by_tree({"none", *resolve_tree("none"), h200_costs(), {}}, nothing, "reply.json");
    EXPECT_FALSE(nothing.collectors.count("ncu"));
    EXPECT_FALSE(nothing.collectors.count("timeline"));
    EXPECT_TRUE(nothing.collectors.count("sass"));
    kp::diagnose::ProfileOptions roofline;
    collect_by_tree({"roofline", *resolve_tree("roofline"), h200_costs(), {}}, roofline, "reply.json");
    EXPECT_TRUE(roofline.collectors.count("ncu"));
    // A budget that cannot hold the roofline's collection, which a tree that tests takes first:
    // nothing on the GPU, as the walk charges it.
    Budget tight;
    tight.passes = profile_cost({}, CollectionShape::roofline_first, h200_costs()).passes - 1;
    kp::diagnose::ProfileOptions starved;
    collect_by_tree({"by_class.toml", *tree, h200_costs(), tight}, starved, "reply.json");
    EXPECT_FALSE(starved.collectors.count("ncu"));
}

// The model charges what the live profile spends: a tool that reads launch facts (grid, block,
// occupancy limits: free counters in ncu's terms) needs the counters run that records them, so a
// leaf of it alone runs the worker and pays the run; a tool of the SASS alone runs nothing.
TEST(TreeEvaluation, ALaunchFactsToolNeedsTheRunAndPaysForIt) {
    const auto& costs = h200_costs();
    EXPECT_TRUE(reads_the_run("tool:small_grid_tail"));
    EXPECT_TRUE(reads_the_run("tool:occupancy_limit"));
    EXPECT_TRUE(reads_the_run("tool:launch_overhead"));
    EXPECT_FALSE(reads_the_run("tool:unbacked_hardware_claim"));
    EXPECT_FALSE(reads_the_run("counters:roofline"));  // not a tool; its counters make it run
    EXPECT_TRUE(runs_in_collection("tool:small_grid_tail", costs.of("tool:small_grid_tail")));

    auto grid = one_leaf_tree("grid", {"tool:small_grid_tail"});
    kp::diagnose::ProfileOptions live;
    collect_by_tree({"grid", grid, costs, {}}, live, "reply.json");
    EXPECT_TRUE(live.collectors.count("ncu"));
    const auto charged = profile_cost({"tool:small_grid_tail"}, CollectionShape::one_run, costs);
    EXPECT_EQ(charged.passes, profile_cost({"counters:roofline"}, CollectionShape::one_run, costs).passes);
    EXPECT_GT(charged.seconds, costs.process_seconds);
    // Under that run's passes it does not fit, and is dropped, not shown for free.
    Budget one_pass;
    one_pass.passes = 1;
    const auto outcome = evaluate_tree(grid, KernelRecord{}, costs, one_pass, false);
    EXPECT_TRUE(outcome.taken.empty());
    EXPECT_EQ(outcome.dropped, (std::vector<std::string>{"tool:small_grid_tail"}));
    kp::diagnose::ProfileOptions starved;
    collect_by_tree({"grid", grid, costs, one_pass}, starved, "reply.json");
    EXPECT_FALSE(starved.collectors.count("ncu"));

    auto claims = one_leaf_tree("claims", {"tool:unbacked_hardware_claim"});
    kp::diagnose::ProfileOptions sass_only;
    collect_by_tree({"claims", claims, costs, {}}, sass_only, "reply.json");
    EXPECT_FALSE(sass_only.collectors.count("ncu"));
    EXPECT_TRUE(sass_only.collectors.count("sass"));
    EXPECT_EQ(profile_cost({"tool:unbacked_hardware_claim"}, CollectionShape::one_run, costs).passes, 0);
}

// The lines a finding quotes from the call's PC samples come only with the lines action, which
// costs seconds (one more call, and the collection's fixed cost when nothing else runs there) and
// no replay pass; the hit-rate objective credits the labelled line it quotes.
TEST(TreeEvaluation, SampledLinesComeOnlyWithPcSampling) {
    KP_REQUIRE_RECORDED_CORPUS();
    const auto* narrow = record_named("narrow_scalar_copy");
    ASSERT_TRUE(narrow);
    ASSERT_FALSE(narrow->lines.empty());
    const auto& costs = h200_costs();
    auto without = evaluate_tree(one_leaf_tree("t", {"tool:narrow_global_access"}), *narrow, costs, {});
    auto with = evaluate_tree(one_leaf_tree("t", {kLinesAction, "tool:narrow_global_access"}), *narrow, costs, {});
    ASSERT_TRUE(is_hit(*narrow, without) && is_hit(*narrow, with));
    auto sampled = [](const TreeOutcome& o) {
        int n = 0;
        for (const auto& f : o.findings)
            for (const auto& e : f.evidence) n += e.sampled;
        return n;
    };
    EXPECT_EQ(sampled(without), 0) << without.feedback;
    EXPECT_GT(sampled(with), 0) << with.feedback;
    EXPECT_FALSE(is_line_hit(*narrow, without));
    EXPECT_TRUE(is_line_hit(*narrow, with)) << with.feedback;
    EXPECT_NE(with.feedback.find(narrow->name + ".cu:" + std::to_string(narrow->lines.front())), std::string::npos) << with.feedback;
    EXPECT_EQ(with.cost.passes, without.cost.passes);
    EXPECT_NEAR(with.cost.seconds - without.cost.seconds, costs.of(kLinesAction).seconds, 1e-9);
    // Samples alone still start the worker, whose first collection holds the roofline's counters.
    auto alone = evaluate_tree(one_leaf_tree("t", {kLinesAction}), *narrow, costs, {});
    const auto roofline = evaluate_tree(one_leaf_tree("t", {kRooflineAction}), *narrow, costs, {});
    EXPECT_EQ(alone.cost.passes, roofline.cost.passes);
    EXPECT_NEAR(alone.cost.seconds, roofline.cost.seconds + costs.of(kLinesAction).seconds, 1e-9);
    // A seconds budget that fits the tool but not the samples drops them, and the line goes.
    Budget tight;
    tight.seconds = without.cost.seconds + 0.5 * costs.of(kLinesAction).seconds;
    auto dropped = evaluate_tree(one_leaf_tree("t", {"tool:narrow_global_access", kLinesAction}), *narrow, costs, tight);
    EXPECT_EQ(dropped.dropped, (std::vector<std::string>{kLinesAction}));
    EXPECT_FALSE(is_line_hit(*narrow, dropped));
    // The objective: the same hits, the line credited.
    auto objective = diagnosis_hit_rate();
    auto a = objective->score({*narrow}, {without}, {});
    auto b = objective->score({*narrow}, {with}, {});
    EXPECT_EQ(a.hits, b.hits);
    EXPECT_EQ(a.line_hits, 0);
    EXPECT_EQ(b.line_hits, 1);
    EXPECT_EQ(b.lined, 1);
    EXPECT_GT(b.value, a.value);
}

// The SASS mix and the task's facts are signals too, known before anything is counted: each
// flawed kernel shows its own instruction, the healthy copy none of them.
TEST(TreeEvaluation, SassMixAndTaskFactsAreSignals) {
    KP_REQUIRE_RECORDED_CORPUS();
    const auto* atomics = record_named("atomic_contention");
    const auto* fp64 = record_named("fp64_in_fp32");
    const auto* syncs = record_named("redundant_syncthreads");
    const auto* narrow = record_named("narrow_scalar_copy");
    const auto* healthy = record_named("healthy_copy_vec4");
    ASSERT_TRUE(atomics && fp64 && syncs && narrow && healthy);
    auto signal = [](const KernelRecord* k, const std::string& name) {
        auto it = k->signals.find(name);
        return it == k->signals.end() ? -1.0 : it->second;
    };
    EXPECT_GT(signal(atomics, "sass.atomics"), 0);
    EXPECT_GT(signal(fp64, "sass.fp64_instructions"), 0);
    EXPECT_GT(signal(syncs, "sass.barriers"), 0);
    EXPECT_EQ(signal(healthy, "sass.atomics"), 0);
    EXPECT_EQ(signal(healthy, "sass.fp64_instructions"), 0);
    EXPECT_EQ(signal(healthy, "sass.barriers"), 0);
    EXPECT_EQ(signal(healthy, "sass.tensor_instructions"), 0);
    // Scalar (32-bit) accesses against the vectorized copy's 128-bit ones.
    EXPECT_GT(signal(narrow, "sass.narrow_global_share"), 0.9);
    EXPECT_LT(signal(healthy, "sass.narrow_global_share"), 0.1);
    // The corpus task is fp32 with a stated cost.
    EXPECT_EQ(signal(healthy, "task.low_precision"), 0);
    EXPECT_GT(signal(healthy, "task.min_bytes"), 0);
    // A tree may test them with no action before: they are free.
    auto tree = parse_tree(R"(format = "kernelpro.profiling-tree/1"
root = "start"

[node.start]
signal = "sass.atomics"
threshold = 1
above = "atomics"
below = "rest"

[node.atomics]
actions = ["tool:atomic_contention"]

[node.rest]
actions = ["tool:small_grid_tail"]
)", "atomics.toml");
    ASSERT_TRUE(tree) << tree.error().message;
    auto o = evaluate_tree(*tree, *atomics, h200_costs(), {});
    EXPECT_EQ(o.leaf, "atomics");
    EXPECT_TRUE(is_hit(*atomics, o)) << o.feedback;
    EXPECT_EQ(evaluate_tree(*tree, *healthy, h200_costs(), {}).leaf, "rest");
}

// In a call of several kernels each kernel's static signals are its own launch's (the recorded
// call: a one-thread zeroing kernel, then a 262144-block atomic sum), and a reply that is not a
// worker's leaves them unknown instead of failing.
TEST(TreeEvaluation, StaticSignalsAreEachKernelsOwnLaunch) {
    const std::string reply = kp::testing::kSource + "/tests/fixtures/h200-calls/zero_then_atomic_sum.counters.json";
    auto launch_signals = [&](const std::string& kernel, const std::string& path) {
        kp::diagnose::KernelDiagnosis k;
        k.diagnosis.kernel_name = kernel;
        return signals_of(k, path);
    };
    auto sum = launch_signals("_Z10atomic_sumPKfPfl", reply);
    EXPECT_EQ(sum["static.blocks"], 262144);
    EXPECT_EQ(sum["static.threads_per_block"], 256);
    EXPECT_EQ(sum["static.registers"], 8);
    auto zero = launch_signals("_Z11zero_outputPf", reply);
    EXPECT_EQ(zero["static.blocks"], 1);
    EXPECT_EQ(zero["static.registers"], 6);
    // A kernel the reply does not name: the call's first launch.
    EXPECT_EQ(launch_signals("not_in_the_reply", reply)["static.blocks"], 1);
    for (const char* text : {R"({"launches": [{"name": 3, "registers": "many", "grid": ["x"]}]})", R"({"launches": 7})", "[1, 2]",
                             "\xff not json"}) {
        kp::test_support::TempDirectory dir;
        const auto path = dir.path() / "reply.json";
        std::ofstream(path) << text;
        auto signals = launch_signals("k", path.string());
        EXPECT_FALSE(signals.count("static.blocks") && signals["static.blocks"] != 0) << text;
    }
}

TEST(TreeEvaluation, BudgetDropsActionsInOrderAndDeterministically) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto full = resolve_tree("full");
    ASSERT_TRUE(full);
    const auto& costs = h200_costs();
    for (int passes : {0, 1, 3, 6}) {
        Budget budget;
        budget.passes = passes;
        for (const auto& k : *recorded_records()) {
            auto a = evaluate_tree(*full, k, costs, budget);
            auto b = evaluate_tree(*full, k, costs, budget);
            EXPECT_LE(a.cost.passes, passes) << k.name;
            EXPECT_EQ(a.taken, b.taken);
            EXPECT_EQ(a.feedback, b.feedback);
            EXPECT_EQ(a.taken.size() + a.dropped.size(), action_catalogue().size());
            // A dropped action's cost would break the budget given what was taken before it, and
            // actions that need no worker (SASS, ptxas) are never dropped by a pass budget.
            for (const auto& d : a.dropped) EXPECT_TRUE(runs_in_collection(d, costs.of(d))) << d;
        }
    }
    Budget none;
    none.passes = 0;
    auto o = evaluate_tree(*full, *record_named("narrow_scalar_copy"), costs, none);
    EXPECT_EQ(o.cost.passes, 0);
    EXPECT_NE(o.feedback.find("(the roofline is not in this leaf's actions"), std::string::npos) << o.feedback;
}

TEST(TreeEvaluation, UnknownSignalGoesBelowWhenItsActionDoesNotFit) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto tree = parse_tree(kByClass, "by_class.toml");
    ASSERT_TRUE(tree);
    const auto* narrow = record_named("narrow_scalar_copy");
    ASSERT_TRUE(narrow);
    ASSERT_EQ(narrow->signals.at("roofline.memory_bound"), 1.0);
    EXPECT_EQ(evaluate_tree(*tree, *narrow, h200_costs(), {}).leaf, "memory");
    Budget tight;
    tight.passes = 0;  // the roofline's counters do not fit: the class is unknown
    auto o = evaluate_tree(*tree, *narrow, h200_costs(), tight);
    EXPECT_NE(o.leaf, "memory");
    EXPECT_EQ(o.dropped.front(), kRooflineAction);
}

TEST(TreeEvaluation, HitRateScoresTheFixedConfigurations) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto objective = diagnosis_hit_rate();
    const auto& kernels = *recorded_records();
    auto score = [&](const std::string& name) {
        std::vector<TreeOutcome> outcomes;
        for (const auto& k : kernels) outcomes.push_back(evaluate_tree(*resolve_tree(name), k, h200_costs(), {}, false));
        return objective->score(kernels, outcomes, {});
    };
    int healthy = 0;
    for (const auto& k : kernels) healthy += k.expect == "none";
    // No profiling: only the healthy kernels count as diagnosed (nothing shown), at no cost.
    auto none = score("none");
    EXPECT_EQ(none.hits, healthy);
    EXPECT_EQ(none.mean_passes, 0);
    auto full = score("full");
    EXPECT_GT(full.hits, none.hits);
    EXPECT_GT(full.mean_passes, none.mean_passes);
    EXPECT_EQ(score("roofline").hits, healthy);  // the roofline alone names no tool
}

// `ncu --set full` as a fixed configuration: its leaf is one collection of measured cost, taken
// whole within the budget or not at all; its counters serve every tool but the timeline's.
TEST(TreeEvaluation, AMeasuredLeafIsTakenWholeOrNotAtAll) {
    KP_REQUIRE_RECORDED_CORPUS();
    auto ncu = resolve_tree("ncu-set-full");
    ASSERT_TRUE(ncu) << ncu.error().message;
    const auto& leaf = ncu->nodes.at(ncu->root);
    ASSERT_TRUE(leaf.measured_cost);
    EXPECT_EQ(leaf.measured_cost->passes, 38);
    EXPECT_EQ(std::count(leaf.collect.begin(), leaf.collect.end(), "tool:launch_overhead"), 0);
    const auto* narrow = record_named("narrow_scalar_copy");
    ASSERT_TRUE(narrow);
    Budget short_of_it;
    short_of_it.passes = 37;
    auto dropped = evaluate_tree(*ncu, *narrow, h200_costs(), short_of_it);
    EXPECT_TRUE(dropped.taken.empty());
    EXPECT_EQ(dropped.dropped, leaf.collect);
    EXPECT_TRUE(dropped.findings.empty());
    EXPECT_EQ(dropped.cost, ActionCost{});
    Budget enough;
    enough.passes = 38;
    auto taken = evaluate_tree(*ncu, *narrow, h200_costs(), enough);
    EXPECT_EQ(taken.taken, leaf.collect);
    EXPECT_EQ(taken.cost, *leaf.measured_cost);  // as measured: no start-up added, no per-action sum
    EXPECT_TRUE(is_hit(*narrow, taken));
    // A call of many tiny launches needs the timeline, which ncu's section set does not give.
    const auto* tiny = record_named("many_tiny_launches");
    ASSERT_TRUE(tiny);
    ASSERT_EQ(tiny->expect, "launch_overhead");
    EXPECT_FALSE(is_hit(*tiny, evaluate_tree(*ncu, *tiny, h200_costs(), {})));
    EXPECT_TRUE(is_hit(*tiny, evaluate_tree(*resolve_tree("full"), *tiny, h200_costs(), {})));
}
