// The tree file: parsing, validation with FILE:LINE errors, and the round trip through to_toml.
#include <gtest/gtest.h>

#include "../source_tree.h"
#include "autoprofiler/catalogue.h"
#include "autoprofiler/profiling_tree.h"

using namespace kp::autoprofiler;

namespace {

const char* kTwoLeaves = R"(format = "kernelpro.profiling-tree/1"
name = "demo"
root = "start"

[node.start]
collect = ["counters:roofline"]
signal = "roofline.memory_bound"
threshold = 0.5
above = "memory"
below = "other"

[node.memory]
actions = ["tool:narrow_global_access", "tool:uncoalesced_global_access"]
max_findings = 2

[node.other]
actions = ["tool:register_spills"]
max_evidence = 1
min_gain = 0.1
)";

std::string error_of(const std::string& text) {
    auto tree = parse_tree(text, "t.toml");
    return tree ? std::string("parsed") : tree.error().message;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST(TreeFormat, ParsesNodesActionsAndRendering) {
    auto tree = parse_tree(kTwoLeaves, "t.toml");
    ASSERT_TRUE(tree) << tree.error().message;
    EXPECT_EQ(tree->root, "start");
    ASSERT_EQ(tree->nodes.size(), 3u);
    const auto& start = tree->nodes.at("start");
    EXPECT_FALSE(start.is_leaf());
    EXPECT_EQ(start.collect, std::vector<std::string>{kRooflineAction});
    EXPECT_DOUBLE_EQ(start.threshold, 0.5);
    EXPECT_EQ(start.line, 5);
    const auto& memory = tree->nodes.at("memory");
    EXPECT_TRUE(memory.is_leaf());
    EXPECT_EQ(memory.collect.size(), 2u);
    EXPECT_EQ(memory.rendering.max_findings, 2);
    EXPECT_EQ(tree->nodes.at("other").rendering.max_evidence, 1);
    EXPECT_DOUBLE_EQ(tree->nodes.at("other").rendering.min_gain, 0.1);
}

// The tree kernelpro ships (autoprofiler/trees) is a valid tree of today's catalogue.
TEST(TreeFormat, TheShippedDefaultTreeLoads) {
    auto tree = load_tree(kp::testing::source_path("autoprofiler/trees/h200-default.toml"));
    ASSERT_TRUE(tree) << tree.error().message;
    EXPECT_FALSE(tree->nodes.empty());
}

TEST(TreeFormat, RoundTripsThroughToml) {
    auto tree = parse_tree(kTwoLeaves, "t.toml");
    ASSERT_TRUE(tree);
    const std::string text = to_toml(*tree);
    auto again = parse_tree(text, "again.toml");
    ASSERT_TRUE(again) << again.error().message << "\n" << text;
    EXPECT_EQ(to_toml(*again), text);
    EXPECT_EQ(again->nodes.at("memory").collect, tree->nodes.at("memory").collect);
}

TEST(TreeFormat, ErrorsNameTheFileAndLine) {
    EXPECT_EQ(error_of(replace(kTwoLeaves, "\"roofline.memory_bound\"", "\"roofline.nonsense\"")),
              "t.toml:5: node 'start': unknown signal 'roofline.nonsense' (see `kernelpro autoprofile catalogue`)");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "tool:register_spills", "tool:no_such_tool")),
              "t.toml:16: node 'other': unknown action 'tool:no_such_tool' (see `kernelpro autoprofile catalogue`)");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "below = \"other\"", "below = \"nowhere\"")), "t.toml:5: node 'start': no node 'nowhere'");
    // The roofline class is measured: testing it without collecting the roofline's counters first is refused.
    EXPECT_EQ(error_of(replace(kTwoLeaves, "collect = [\"counters:roofline\"]\n", "")),
              "t.toml:5: node 'start': signal 'roofline.memory_bound' is measured by 'counters:roofline', which is not collected on the way here");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "threshold = 0.5\n", "")), "t.toml:5: node 'start': a test needs a numeric threshold");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "max_findings = 2", "max_findngs = 2")), "t.toml:14: node 'memory': unknown key 'max_findngs'");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "kernelpro.profiling-tree/1", "kernelpro.profiling-tree/9")),
              "t.toml:1: format 'kernelpro.profiling-tree/9' is not 'kernelpro.profiling-tree/1'");
    // A TOML syntax error keeps toml++'s line.
    EXPECT_EQ(error_of(replace(kTwoLeaves, "max_evidence = 1", "max_evidence = = 1")).rfind("t.toml:18: ", 0), 0u);
}

TEST(TreeFormat, RefusesUnreachableNodesAndCycles) {
    EXPECT_EQ(error_of(std::string(kTwoLeaves) + "\n[node.orphan]\nactions = []\n"), "t.toml:21: node 'orphan' cannot be reached from the root");
    std::string cycle = replace(kTwoLeaves, "below = \"other\"", "below = \"start\"");
    cycle = replace(cycle, "[node.other]\nactions = [\"tool:register_spills\"]\nmax_evidence = 1\nmin_gain = 0.1\n", "");
    EXPECT_EQ(error_of(cycle), "t.toml:5: node 'start' is reached twice (a cycle or a shared child)");
}

TEST(TreeFormat, ALeafMayCarryItsMeasuredCost) {
    const std::string measured = replace(kTwoLeaves, "max_findings = 2\n", "max_findings = 2\nmeasured_cost = { seconds = 6.4, passes = 38 }\n");
    auto tree = parse_tree(measured, "t.toml");
    ASSERT_TRUE(tree) << tree.error().message;
    ASSERT_TRUE(tree->nodes.at("memory").measured_cost);
    EXPECT_EQ(*tree->nodes.at("memory").measured_cost, (ActionCost{6.4, 38}));
    EXPECT_FALSE(tree->nodes.at("other").measured_cost);
    auto again = parse_tree(to_toml(*tree), "again.toml");
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(again->nodes.at("memory").measured_cost, tree->nodes.at("memory").measured_cost);

    EXPECT_EQ(error_of(replace(kTwoLeaves, "threshold = 0.5\n", "threshold = 0.5\nmeasured_cost = { seconds = 1, passes = 1 }\n")),
              "t.toml:9: node 'start': `measured_cost` belongs to a leaf");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "max_findings = 2\n", "max_findings = 2\nmeasured_cost = { seconds = 1 }\n")),
              "t.toml:15: node 'memory': measured_cost needs { seconds = S, passes = P }, both >= 0");
    EXPECT_EQ(error_of(replace(kTwoLeaves, "max_findings = 2\n", "max_findings = 2\nmeasured_cost = 3\n")),
              "t.toml:15: node 'memory': measured_cost needs { seconds = S, passes = P }, both >= 0");
}
