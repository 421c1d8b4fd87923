// diagnose() without counters (the offline SASS/ptxas path uses the same function, so the same gain
// floor and cap), and the planner's first collection: every tool's counters in one run when the
// budget allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "analysis/diagnosis.h"
#include "analysis/planner.h"
#include "analysis/tools/tool_base.h"

using namespace kp::analysis;

namespace {

// A tool that always finds its problem with a fixed gain and needs nothing: what a real tool
// returns when its data is present, without needing a profile to get there.
class FixedGainTool final : public DescribedTool {
public:
    FixedGainTool(std::string name, double gain, DataNeeds needs = {})
        : DescribedTool(std::move(name), every_class(), std::move(needs), "always"), gain_(gain) {}
    std::optional<Finding> diagnose(const ToolContext&) const override {
        Finding f;
        f.estimated_gain = gain_;
        f.summary = "fixed";
        return f;
    }

private:
    double gain_;
};

ToolRegistry fixed_tools(int count, double gain) {
    ToolRegistry registry;
    for (int i = 0; i < count; ++i) registry.add(std::make_unique<FixedGainTool>("fixed_" + std::to_string(i), gain + 0.01 * i));
    return registry;
}

}  // namespace

TEST(OfflineDiagnosis, WithoutCountersTheRooflineIsUnknownAndEveryToolWithItsDataRuns) {
    ToolRegistry registry = fixed_tools(2, 0.2);
    registry.add(std::make_unique<FixedGainTool>("wants_sass", 0.5, DataNeeds{{}, /*sass=*/true, false, false, false, false}));
    registry.add(std::make_unique<FixedGainTool>("wants_timeline", 0.5, DataNeeds{{}, false, false, false, /*timeline=*/true, false}));
    ProfileData data;
    data.kernel_name = "k";
    auto d = diagnose(data, registry);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_EQ(d->roofline.reason, "no ncu metrics: roofline not measured");
    EXPECT_EQ(d->tools_run, (std::vector<std::string>{"fixed_0", "fixed_1"}));
    EXPECT_EQ(d->tools_without_data, (std::vector<std::string>{"wants_sass", "wants_timeline"}));
    ASSERT_EQ(d->findings.size(), 2u);
    EXPECT_EQ(d->findings[0].tool, "fixed_1");  // ranked by gain
}

TEST(OfflineDiagnosis, HonoursTheGainFloorAndTheFindingCap) {
    ProfileData data;
    data.kernel_name = "k";
    auto below = diagnose(data, fixed_tools(3, 0.01));  // 1%, 2%, 3%: all under the 5% floor
    ASSERT_TRUE(below);
    EXPECT_TRUE(below->findings.empty());
    DiagnosisOptions options;
    options.max_findings = 4;
    auto capped = diagnose(data, fixed_tools(10, 0.2), options);
    ASSERT_TRUE(capped);
    ASSERT_EQ(capped->findings.size(), 4u);
    EXPECT_EQ(capped->findings.front().tool, "fixed_9");
}

// The default profile is one collection with every tool's counters (measured: a second ncu run
// costs a whole 1.6 s start-up, all tools' counters 5 passes); a tight budget or two stages split it.
TEST(FirstCollection, DefaultCollectsEveryToolsCountersInOneRun) {
    auto tools = default_tool_registry().all();
    auto plan = plan_first_collection(tools, StagePlan::automatic, {}, false);
    EXPECT_TRUE(plan.all_tools);
    EXPECT_FALSE(plan.source_page) << "the source page is opt-in";
    EXPECT_TRUE(plan.tools_plan.dropped.empty());
    auto has = [&](const std::string& m) { return std::find(plan.metrics.begin(), plan.metrics.end(), m) != plan.metrics.end(); };
    for (const auto& m : roofline_metric_names()) EXPECT_TRUE(has(m)) << m;
    for (const auto* tool : tools)
        for (const auto& m : tool->needs().metrics) EXPECT_TRUE(has(m)) << tool->name() << ": " << m;
    EXPECT_TRUE(has("profiler__replayer_passes"));
    EXPECT_TRUE(has("launch__block_size"));
    EXPECT_EQ(std::set<std::string>(plan.metrics.begin(), plan.metrics.end()).size(), plan.metrics.size()) << "duplicates";
}

TEST(FirstCollection, AllowingTheSourcePageAddsIt) {
    auto plan = plan_first_collection(default_tool_registry().all(), StagePlan::automatic, {}, true);
    EXPECT_TRUE(plan.all_tools);
    EXPECT_TRUE(plan.source_page);
}

TEST(FirstCollection, TightBudgetOrTwoStagesCollectTheRooflineFirst) {
    auto tools = default_tool_registry().all();
    PlanBudget tight;
    tight.max_replay_passes = 7;
    auto automatic = plan_first_collection(tools, StagePlan::automatic, tight, false);
    EXPECT_FALSE(automatic.all_tools);
    EXPECT_EQ(automatic.metrics, automatic.roofline_metrics);
    auto forced = plan_first_collection(tools, StagePlan::one_run, tight, false);  // tools that do not fit are dropped
    EXPECT_TRUE(forced.all_tools);
    EXPECT_FALSE(forced.tools_plan.dropped.empty());
    auto two = plan_first_collection(tools, StagePlan::two_runs, {}, false);
    EXPECT_FALSE(two.all_tools);
    EXPECT_EQ(two.metrics, two.roofline_metrics);
}
