// The per-GPU cost table: the shipped H200 table is exactly what the recorded counter replies
// seed, every action has a cost, and a table missing one is refused.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../source_tree.h"
#include "analysis/roofline.h"
#include "analysis/tool_registry.h"
#include "autoprofiler/catalogue.h"

using namespace kp::autoprofiler;

namespace {

const std::filesystem::path kShipped = kp::testing::source_tree() / "autoprofiler/costs/h200.toml";

std::vector<std::filesystem::path> recorded_replies() {
    std::vector<std::filesystem::path> out;
    for (const auto& e : std::filesystem::directory_iterator(kp::testing::source_tree() / "tests/fixtures/h200-corpus"))
        if (e.path().string().ends_with(".counters.json")) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST(CostTable, ShippedH200TableIsSeededFromTheRecordings) {
    auto seeded = seed_cost_table(recorded_replies(), "h200");
    ASSERT_TRUE(seeded) << seeded.error().message;
    std::ifstream in(kShipped);
    std::stringstream shipped;
    shipped << in.rdbuf();
    EXPECT_EQ(to_toml(*seeded), shipped.str()) << "re-seed: kernelpro autoprofile costs --recordings tests/fixtures/h200-corpus --out " << kShipped;
}

TEST(CostTable, MeasuredCostsAreSane) {
    auto table = load_cost_table(kShipped);
    ASSERT_TRUE(table) << table.error().message;
    EXPECT_EQ(table->gpu, "h200");
    // The recorded collections: 8 passes in about 0.3 s of replay after about 0.2 s of CUPTI's
    // set-up, the worker's start and inputs before it.
    EXPECT_GT(table->collection_seconds, 0.1);
    EXPECT_LT(table->collection_seconds, 2.0);
    EXPECT_GT(table->process_seconds, 0.05);
    EXPECT_GT(table->seconds_per_pass, 0.0);
    EXPECT_GE(table->of(kRooflineAction).passes, 1);
    EXPECT_GT(table->of(kRooflineAction).seconds, 0.0);
    // A tool with counters beyond the roofline's replays the kernel; one without (launch__* facts
    // come with the launch, SASS and ptxas with the build) replays nothing.
    const auto roofline = counters_of_action(kRooflineAction);
    for (const auto* tool : kp::analysis::default_tool_registry().all()) {
        bool own = false;
        for (const auto& m : counters_of_action("tool:" + std::string(tool->name())))
            own |= std::find(roofline.begin(), roofline.end(), m) == roofline.end();
        EXPECT_EQ(table->of("tool:" + std::string(tool->name())).passes > 0, own) << tool->name();
    }
    EXPECT_EQ(table->of("tool:small_grid_tail").passes, 0);  // the grid and the waves: launch facts
    EXPECT_GE(table->of("tool:shared_bank_conflicts").passes, 1);
    // PC sampling is one more call in the collection, no replay: seconds, never passes.
    EXPECT_EQ(table->of(kLinesAction).passes, 0);
    EXPECT_GT(table->of(kLinesAction).seconds, 0.0);
    for (const auto& a : action_catalogue()) EXPECT_TRUE(table->actions.count(a)) << a;
}

TEST(CostTable, MissingActionOrBadCostIsAnError) {
    const auto path = std::filesystem::temp_directory_path() / "kp_cost_table_test.toml";
    {
        std::ofstream out(path);
        out << "gpu = \"x\"\ncollection_seconds = 0.3\n[action.\"counters:roofline\"]\nseconds = 0.1\npasses = 2\n";
    }
    auto missing = load_cost_table(path);
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("no cost for action 'lines:pc_sampling'"), std::string::npos) << missing.error().message;
    {
        std::ofstream out(path);
        out << "gpu = \"x\"\n[action.\"counters:roofline\"]\nseconds = -1\npasses = 2\n";
    }
    auto bad = load_cost_table(path);
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error().message, path.string() + ":2: action 'counters:roofline' needs seconds >= 0 and passes >= 0");
    std::filesystem::remove(path);
}
