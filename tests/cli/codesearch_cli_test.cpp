// `kernelpro codesearch` through the real binary on a fixture tree: the index built, then reused,
// with its times; the tools' answers; bad input as one line and exit 2.
#include <gtest/gtest.h>

#include "../codesearch/fixture_tree.h"
#include "cli/cli_runner.h"

using kp::cli_test::run_kernelpro;

TEST(CodesearchCli, IndexesOnceSearchesListsAndReadsWithTimes) {
    kp::codesearch::testing::FixtureTree tree;
    const std::string root = tree.root.string(), cache = tree.cache.string();
    auto built = run_kernelpro({"codesearch", "index", root, "--cache-dir", cache}, tree.scratch.path());
    EXPECT_EQ(built.exit_code, 0) << built.err;
    EXPECT_NE(built.err.find("index: built"), std::string::npos) << built.err;
    EXPECT_NE(built.err.find("(6 files,"), std::string::npos) << built.err;

    auto search = run_kernelpro({"codesearch", "search", root, "make_tma_copy\\(", "--cache-dir", cache}, tree.scratch.path());
    EXPECT_EQ(search.exit_code, 0) << search.err;
    EXPECT_NE(search.err.find("index: reused"), std::string::npos) << search.err;
    EXPECT_NE(search.err.find("query: "), std::string::npos);
    EXPECT_EQ(search.first_out_line(), "1 matching line in 1 file for regex \"make_tma_copy\\(\":");

    auto list = run_kernelpro({"codesearch", "list", root, "include/cute", "--cache-dir", cache}, tree.scratch.path());
    EXPECT_EQ(list.exit_code, 0) << list.err;
    EXPECT_EQ(list.first_out_line(), "include/cute/ (3 entries):");

    auto read = run_kernelpro({"codesearch", "read", root, "include/cute/layout.hpp", "7", "8", "--cache-dir", cache},
                              tree.scratch.path());
    EXPECT_EQ(read.exit_code, 0) << read.err;
    EXPECT_EQ(read.out, "include/cute/layout.hpp lines 7-8 of 300:\n    7| int line_7 = 7;\n    8| int line_8 = 8;\n"
                        "[the file goes on to line 300]\n");
}

TEST(CodesearchCli, BadInputIsOneLineAndExitTwo) {
    kp::codesearch::testing::FixtureTree tree;
    const std::string root = tree.root.string(), cache = tree.cache.string();
    auto regex = run_kernelpro({"codesearch", "search", root, "(unclosed", "--cache-dir", cache}, tree.scratch.path());
    EXPECT_EQ(regex.exit_code, 2);
    EXPECT_EQ(regex.err.substr(regex.err.find("error:")), "error: the regex does not compile: missing ): (unclosed\n");

    auto outside = run_kernelpro({"codesearch", "read", root, "../secret.txt", "--cache-dir", cache}, tree.scratch.path());
    EXPECT_EQ(outside.exit_code, 2);
    EXPECT_NE(outside.err.find("error: refused: '../secret.txt' is outside the tree"), std::string::npos) << outside.err;
    EXPECT_EQ(outside.out.find("TOP_SECRET"), std::string::npos);

    auto missing = run_kernelpro({"codesearch", "index", (tree.scratch.path() / "nope").string()}, tree.scratch.path());
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.first_err_line().find("error: not a folder:"), std::string::npos) << missing.err;
}
