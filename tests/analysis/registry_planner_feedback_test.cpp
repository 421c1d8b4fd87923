#include <gtest/gtest.h>

#include <set>

#include "analysis/feedback.h"
#include "analysis/planner.h"
#include "analysis/tool_registry.h"
#include "fixture_profiles.h"

using namespace kp::analysis;

TEST(ToolRegistry, HoldsSixteenDocumentedTools) {
    const ToolRegistry& registry = default_tool_registry();
    auto tools = registry.all();
    EXPECT_GE(tools.size(), 16u);
    std::set<std::string> names;
    for (const MicroTool* tool : tools) {
        names.insert(std::string(tool->name()));
        EXPECT_FALSE(tool->classes().empty()) << tool->name();
        EXPECT_FALSE(tool->threshold().empty()) << tool->name();
        DataNeeds needs = tool->needs();
        // Every tool reads something: counters, the timeline, or (the static SASS tools) the SASS.
        EXPECT_TRUE(!needs.metrics.empty() || needs.timeline || needs.sass) << tool->name();
    }
    EXPECT_EQ(names.size(), tools.size());
    for (const char* expected : {"uncoalesced_global_access", "shared_bank_conflicts", "narrow_global_access", "register_spills",
                                 "occupancy_limit", "small_grid_tail", "warp_divergence", "long_scoreboard_latency",
                                 "math_pipe_saturation", "matmul_without_tensor_cores", "fp64_or_unfused_math", "dram_traffic_excess",
                                 "l2_locality", "launch_overhead", "barrier_stalls", "atomic_contention", "unbacked_hardware_claim"})
        EXPECT_NE(registry.find(expected), nullptr) << expected;
    EXPECT_EQ(registry.find("nonexistent"), nullptr);
    // Class gating: the memory-bound set excludes compute-only tools.
    auto memory = registry.for_class(RooflineClass::memory_bound);
    EXPECT_EQ(std::count(memory.begin(), memory.end(), registry.find("math_pipe_saturation")), 0);
    EXPECT_EQ(std::count(memory.begin(), memory.end(), registry.find("uncoalesced_global_access")), 1);
}

TEST(Planner, UnionsNeedsAndRespectsTheBudget) {
    const ToolRegistry& registry = default_tool_registry();
    auto tools = registry.for_class(RooflineClass::memory_bound);
    ProfilingPlan plan = plan_profiling(RooflineClass::memory_bound, tools);
    EXPECT_TRUE(plan.dropped.empty());
    EXPECT_EQ(plan.tools.size(), tools.size());
    EXPECT_TRUE(plan.sass);
    EXPECT_TRUE(plan.ptxas);
    EXPECT_TRUE(plan.source_page);
    EXPECT_TRUE(std::is_sorted(plan.metrics.begin(), plan.metrics.end()));
    EXPECT_EQ(std::set<std::string>(plan.metrics.begin(), plan.metrics.end()).size(), plan.metrics.size());
    EXPECT_NE(std::find(plan.metrics.begin(), plan.metrics.end(), "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), plan.metrics.end());
    EXPECT_GT(plan.cost.replay_passes, 12);
    EXPECT_GT(plan.cost.seconds, 0);

    // A tight budget keeps the first (most valuable) tools and drops the source page's cost.
    PlanBudget tight;
    tight.max_replay_passes = 6;
    ProfilingPlan small = plan_profiling(RooflineClass::memory_bound, tools, tight);
    EXPECT_FALSE(small.dropped.empty());
    EXPECT_LE(small.cost.replay_passes, 6);
    EXPECT_FALSE(small.source_page);
    EXPECT_LT(small.metrics.size(), plan.metrics.size());

    // Timeline-only tool: no ncu passes.
    ProfilingPlan timeline = plan_profiling(RooflineClass::latency_bound, {registry.find("launch_overhead")});
    EXPECT_TRUE(timeline.timeline);
    EXPECT_EQ(timeline.cost.replay_passes, 0);
}

TEST(Feedback, TerminalJsonAndLlmText) {
    auto diagnosis = diagnose(kp::testing::fixture_profile("copy_strided"));
    ASSERT_TRUE(diagnosis);
    std::string report = render_terminal_report(*diagnosis);
    EXPECT_NE(report.find("Roofline: memory-bound (DRAM)"), std::string::npos) << report;
    EXPECT_NE(report.find("1. ["), std::string::npos) << report;
    EXPECT_NE(report.find("uncoalesced_global_access"), std::string::npos);
    EXPECT_LT(report.find("Roofline:"), report.find("Findings"));

    nlohmann::json j = to_json(*diagnosis);
    EXPECT_EQ(j["roofline"]["class"], "memory-bound");
    ASSERT_FALSE(j["findings"].empty());
    EXPECT_EQ(j["findings"][0]["tool"], "uncoalesced_global_access");
    EXPECT_GT(j["findings"][0]["estimated_gain"].get<double>(), 0.5);
    EXPECT_FALSE(j["findings"][0]["evidence"].empty());
    EXPECT_EQ(nlohmann::json::parse(j.dump()), j);

    LlmFeedbackOptions options;
    options.max_findings = 1;
    std::string llm = render_llm_feedback(*diagnosis, options);
    EXPECT_NE(llm.find("fix: "), std::string::npos) << llm;
    EXPECT_NE(llm.find("1. "), std::string::npos);
    EXPECT_EQ(llm.find("2. "), std::string::npos) << llm;  // only the top finding
    EXPECT_EQ(llm.find("lts__"), std::string::npos) << llm;  // no raw counter dumps
    EXPECT_LT(llm.size(), 1200u) << llm;

    auto healthy = diagnose(kp::testing::fixture_profile("copy_vec4"));
    ASSERT_TRUE(healthy);
    EXPECT_NE(render_llm_feedback(*healthy).find("No problem"), std::string::npos);
}
