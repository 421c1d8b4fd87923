// What a live profile costs for the actions a walk takes (profile_cost): the worker starts once,
// its first collection holds the roofline's counters, a tree that tests counts the rest in a
// follow-up, counters share passes, and the sampled and traced calls are paid once.
#include <gtest/gtest.h>

#include <numeric>

#include "analysis/tool_registry.h"
#include "autoprofiler/profile_cost.h"
#include "gpu/helper_paths.h"
#include "recorded_records.h"

using namespace kp::autoprofiler;
using kp::testing::h200_costs;

namespace {

std::vector<std::string> every_tool() {
    std::vector<std::string> out;
    for (const auto* tool : kp::analysis::default_tool_registry().all()) out.push_back("tool:" + std::string(tool->name()));
    return out;
}

}  // namespace

TEST(ProfileCost, NothingOnTheGpuCostsNothingUnlessATreeTests) {
    const auto& costs = h200_costs();
    EXPECT_EQ(profile_cost({}, CollectionShape::one_run, costs), ActionCost{});
    EXPECT_EQ(profile_cost({"tool:unbacked_hardware_claim"}, CollectionShape::one_run, costs), ActionCost{});  // SASS only
    // A tree that tests counts the roofline first, whatever its leaf takes.
    const auto forced = profile_cost({}, CollectionShape::roofline_first, costs);
    EXPECT_EQ(forced.passes, costs.of(kRooflineAction).passes);
    EXPECT_NEAR(forced.seconds, costs.process_seconds + costs.collection_seconds + forced.passes * costs.seconds_per_pass, 1e-9);
    EXPECT_EQ(profile_cost({kRooflineAction}, CollectionShape::one_run, costs), forced);
    EXPECT_EQ(profile_cost({"tool:unbacked_hardware_claim"}, CollectionShape::roofline_first, costs), forced);
}

// A tool's counters beyond the roofline's: in the first collection of a one-run profile, in a
// follow-up (CUPTI's set-up again, no second worker start) for a tree that tests.
TEST(ProfileCost, ATreeThatTestsPaysAFollowUpNotASecondWorker) {
    const auto& costs = h200_costs();
    const std::vector<std::string> taken{kRooflineAction, "tool:shared_bank_conflicts"};
    const auto one = profile_cost(taken, CollectionShape::one_run, costs);
    const auto two = profile_cost(taken, CollectionShape::roofline_first, costs);
    EXPECT_GE(two.passes, one.passes);
    EXPECT_NEAR(two.seconds - one.seconds, costs.collection_seconds + (two.passes - one.passes) * costs.seconds_per_pass, 1e-9);
    EXPECT_LT(two.seconds, 2 * one.seconds);  // no second process start
    // A tool whose counters the roofline's collection holds already adds no follow-up.
    EXPECT_EQ(profile_cost({kRooflineAction}, CollectionShape::roofline_first, costs),
              profile_cost({}, CollectionShape::roofline_first, costs));
}

// Counters share replay passes: the whole set in one collection takes CUPTI's plan for it, fewer
// than the actions' passes added up.
TEST(ProfileCost, CountersSharePasses) {
    const auto& costs = h200_costs();
    auto all = every_tool();
    all.push_back(kRooflineAction);
    const int added = std::accumulate(all.begin(), all.end(), 0, [&](int sum, const std::string& a) { return sum + costs.of(a).passes; });
    const auto full = profile_cost(all, CollectionShape::one_run, costs);
    if (costs.chip.empty() || !kp::gpu::find_helper("libkp_counters.so"))
        GTEST_SKIP() << "no counters library (CUPTI's host API): passes are added per action";
    EXPECT_LT(full.passes, added);
    std::vector<std::string> counters;
    for (const auto& a : all)
        for (const auto& m : counters_of_action(a)) counters.push_back(m);
    std::sort(counters.begin(), counters.end());
    counters.erase(std::unique(counters.begin(), counters.end()), counters.end());
    EXPECT_EQ(full.passes, planned_passes(costs.chip, counters));
}

// The sampled call and the traced call are each paid once, with no replay pass.
TEST(ProfileCost, SamplesAndTraceArePaidOnce) {
    const auto& costs = h200_costs();
    const std::vector<std::string> base{kRooflineAction, "tool:narrow_global_access"};
    auto with = base;
    with.insert(with.end(), {kLinesAction, "tool:launch_overhead"});
    const auto a = profile_cost(base, CollectionShape::one_run, costs);
    const auto b = profile_cost(with, CollectionShape::one_run, costs);
    EXPECT_EQ(a.passes, b.passes);
    EXPECT_NEAR(b.seconds - a.seconds, costs.of(kLinesAction).seconds + costs.of("tool:launch_overhead").seconds, 1e-9);
}
