// The tools as the model calls them: JSON arguments in, text within the budget out; every bad
// call an error result with a reason, never a crash and never a read outside the tree.
#include <gtest/gtest.h>

#include "codesearch/code_search_tools.h"
#include "fixture_tree.h"

using namespace kp::codesearch;
using kp::codesearch::testing::FixtureTree;
using kp::llm::ToolCall;

namespace {

std::shared_ptr<CodeSearchTools> tools_for(const FixtureTree& tree, ToolBudget budget = {}) {
    auto index = CodeIndex::open(tree.root, {tree.cache});
    EXPECT_TRUE(index.ok()) << (index.ok() ? "" : index.error().message);
    return std::make_shared<CodeSearchTools>(std::make_shared<const CodeIndex>(std::move(index).value()), "CUTLASS 4.2.0",
                                             budget);
}

}  // namespace

TEST(CodeSearchTools, DeclaresThreeToolsWithSchemasBothProvidersAccept) {
    FixtureTree tree;
    auto tools = tools_for(tree);
    const auto& defs = tools->definitions();
    ASSERT_EQ(defs.size(), 3u);
    EXPECT_EQ(defs[0].name, "search_code");
    EXPECT_EQ(defs[1].name, "list_files");
    EXPECT_EQ(defs[2].name, "read_file");
    for (const auto& d : defs) {
        EXPECT_EQ(d.parameters["type"], "object");
        EXPECT_NE(d.description.find("CUTLASS 4.2.0"), std::string::npos);
    }
    EXPECT_EQ(defs[0].parameters["required"], nlohmann::json::array({"pattern"}));
}

TEST(CodeSearchTools, OpenLabelsACutlassTreeByItsVersion) {
    FixtureTree tree;
    auto tools = open_code_search_tools(tree.root, {tree.cache});
    ASSERT_TRUE(tools.ok()) << tools.error().message;
    EXPECT_NE((*tools)->definitions()[0].description.find("CUTLASS 4.2.0"), std::string::npos);
}

TEST(CodeSearchTools, RunsSearchListAndRead) {
    FixtureTree tree;
    auto tools = tools_for(tree);
    auto search = tools->run({"c1", "search_code", {{"pattern", "make_tma_copy"}, {"path", "include"}}});
    EXPECT_FALSE(search.is_error);
    EXPECT_EQ(search.text,
              "2 matching lines in 1 file for regex \"make_tma_copy\":\n"
              "include/cute/atom/copy_traits_sm90_tma.hpp:3: // make_tma_copy builds a TMA copy atom for one cluster\n"
              "include/cute/atom/copy_traits_sm90_tma.hpp:5: auto make_tma_copy(CopyOp const& copy_op, GEngine const& "
              "gtensor) { return copy_op; }\n");

    auto none = tools->run({"c2", "search_code", {{"pattern", "no_such_symbol"}}});
    EXPECT_FALSE(none.is_error);
    EXPECT_NE(none.text.find("no line matches"), std::string::npos);

    auto list = tools->run({"c3", "list_files", {{"path", "include/cute"}}});
    EXPECT_EQ(list.text, "include/cute/ (3 entries):\natom/  (2 files)\nlayout.hpp  (300 lines)\ntensor.hpp  (3 lines)\n");

    auto read = tools->run({"c4", "read_file", {{"path", "include/cute/layout.hpp"}, {"start_line", 2}, {"end_line", 3}}});
    EXPECT_EQ(read.text,
              "include/cute/layout.hpp lines 2-3 of 300:\n    2| int line_2 = 2;\n    3| int line_3 = 3;\n"
              "[the file goes on to line 300]\n");
}

TEST(CodeSearchTools, ResultsStayWithinTheBudgetAndSayWhatWasLeftOut) {
    FixtureTree tree;
    ToolBudget budget;
    budget.max_chars = 400;
    budget.max_read_lines = 50;
    auto tools = tools_for(tree, budget);
    auto search = tools->run({"c1", "search_code", {{"pattern", "^int line_"}}});
    EXPECT_LE(search.text.size(), 400u);
    EXPECT_NE(search.text.find("more matching lines not shown"), std::string::npos) << search.text;

    auto read = tools->run({"c2", "read_file", {{"path", "include/cute/layout.hpp"}, {"start_line", 1}, {"end_line", 300}}});
    EXPECT_LE(read.text.size(), 400u);
    EXPECT_NE(read.text.find("read on from line"), std::string::npos) << read.text;

    // The read is bounded in lines too: at most max_read_lines, whatever was asked.
    budget.max_chars = 100000;
    auto wide = tools_for(tree, budget)->run({"c3", "read_file", {{"path", "include/cute/layout.hpp"}, {"end_line", 300}}});
    EXPECT_NE(wide.text.find("lines 1-50 of 300"), std::string::npos) << wide.text.substr(0, 80);
}

TEST(CodeSearchTools, BadCallsAreErrorResultsWithAReason) {
    FixtureTree tree;
    auto tools = tools_for(tree);
    struct Case {
        ToolCall call;
        std::string reason;
    };
    const std::vector<Case> cases{
        {{"1", "search_code", {{"pattern", "make_tma_copy("}}}, "the regex does not compile"},
        {{"2", "search_code", nlohmann::json::object()}, "missing argument \"pattern\""},
        {{"3", "search_code", {{"pattern", "x"}, {"mode", "fuzzy"}}}, "mode must be"},
        {{"4", "read_file", {{"path", "../secret.txt"}}}, "outside the tree"},
        {{"5", "read_file", {{"path", "/etc/passwd"}, {"start_line", 1}}}, "outside the tree"},
        {{"6", "list_files", {{"path", "../"}}}, "outside the tree"},
        {{"7", "read_file", {{"path", "include/cute/layout.hpp"}, {"start_line", "ten"}}}, "must be an integer"},
        {{"8", "read_file", {{"path", 7}}}, "must be a string"},
        {{"8b", "read_file", {{"path", "include/cute/layout.hpp"}, {"start_line", 9223372036854775807LL}}}, "past its end"},
        {{"9", "rm_rf", {{"path", "/"}}}, "no tool named 'rm_rf'"},
        {{"10", "search_code", nlohmann::json("{not json")}, "not a JSON object"},
    };
    for (const auto& c : cases) {
        auto result = tools->run(c.call);
        EXPECT_TRUE(result.is_error) << c.call.name << " " << c.call.arguments.dump();
        EXPECT_EQ(result.text.rfind("error: ", 0), 0u) << result.text;
        EXPECT_NE(result.text.find(c.reason), std::string::npos) << result.text;
        EXPECT_EQ(result.text.find("TOP_SECRET"), std::string::npos);
    }
}
