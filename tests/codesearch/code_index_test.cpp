// The index on a real tree of files: built once and reused while the tree is unchanged, rebuilt
// when it changes; regex and word searches narrowed by the trigram index give what a full scan
// gives; paths outside the tree, links out of it and binary files are never read.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "codesearch/code_index.h"
#include "fixture_tree.h"

using namespace kp::codesearch;
using kp::codesearch::testing::FixtureTree;

namespace {

CodeIndex open_index(const FixtureTree& tree) {
    auto index = CodeIndex::open(tree.root, {tree.cache});
    EXPECT_TRUE(index.ok()) << (index.ok() ? "" : index.error().message);
    return std::move(index).value();
}

std::vector<std::string> hit_places(const SearchResult& result) {
    std::vector<std::string> places;
    for (const auto& hit : result.hits) places.push_back(hit.path + ":" + std::to_string(hit.line));
    return places;
}

}  // namespace

TEST(CodeIndex, IndexesTextFilesOnlyAndReusesTheIndexWhileTheTreeIsUnchanged) {
    FixtureTree tree;
    auto first = open_index(tree);
    EXPECT_FALSE(first.stats().reused);
    EXPECT_EQ(first.stats().files, 6u);  // not the binary, the link, nor the hidden folder
    EXPECT_GT(first.stats().lines, 300u);
    EXPECT_TRUE(std::filesystem::is_regular_file(first.stats().index_file));

    auto second = open_index(tree);
    EXPECT_TRUE(second.stats().reused);
    EXPECT_EQ(second.stats().files, first.stats().files);
    EXPECT_EQ(second.stats().index_file, first.stats().index_file);
}

TEST(CodeIndex, AChangedFileRebuildsTheIndex) {
    FixtureTree tree;
    open_index(tree);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kp::codesearch::testing::write(tree.root / "include/cute/tensor.hpp", "// brand_new_symbol appears\n");
    auto rebuilt = open_index(tree);
    EXPECT_FALSE(rebuilt.stats().reused);
    auto found = rebuilt.search({"brand_new_symbol"});
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_EQ(hit_places(*found), std::vector<std::string>{"include/cute/tensor.hpp:1"});
}

TEST(CodeIndex, RegexSearchIsNarrowedByTheIndexAndMatchesLineByLine) {
    FixtureTree tree;
    auto index = open_index(tree);
    auto found = index.search({R"(make_tma_copy\(CopyOp)"});
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_EQ(hit_places(*found), std::vector<std::string>{"include/cute/atom/copy_traits_sm90_tma.hpp:5"});
    EXPECT_EQ(found->files_scanned, 1u);  // the literal narrowed six files to one

    auto any = index.search({"make_tma_copy"});
    ASSERT_TRUE(any.ok());
    EXPECT_EQ(hit_places(*any), (std::vector<std::string>{"examples/48_hopper_warp_specialized_gemm/gemm.cu:3",
                                                           "include/cute/atom/copy_traits_sm90_tma.hpp:3",
                                                           "include/cute/atom/copy_traits_sm90_tma.hpp:5"}));
    EXPECT_EQ(any->total_hits, 3u);
    EXPECT_EQ(any->files_with_hits, 2u);

    // An alternation narrows nothing: every file is scanned, and the answer is the same kind.
    auto either = index.search({"SM90_TMA_LOAD|SM90_64x128x16"});
    ASSERT_TRUE(either.ok());
    EXPECT_EQ(either->files_scanned, 6u);
    EXPECT_EQ(either->total_hits, 2u);

    auto folded = index.search({"(?i)WARPGROUP mma"});
    ASSERT_TRUE(folded.ok());
    EXPECT_EQ(hit_places(*folded), std::vector<std::string>{"include/cute/atom/mma_traits_sm90_gmma.hpp:2"});
}

TEST(CodeIndex, SearchWithinAFolderAndKeepsOnlyMaxHitsButCountsAll) {
    FixtureTree tree;
    auto index = open_index(tree);
    SearchQuery in_examples{"make_tma_copy", SearchMode::regex, "examples"};
    auto found = index.search(in_examples);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(hit_places(*found), std::vector<std::string>{"examples/48_hopper_warp_specialized_gemm/gemm.cu:3"});

    SearchQuery many{R"(^int line_\d+)", SearchMode::regex, "include/cute/layout.hpp", 10};
    auto lines = index.search(many);
    ASSERT_TRUE(lines.ok());
    EXPECT_EQ(lines->hits.size(), 10u);
    EXPECT_EQ(lines->total_hits, 300u);
}

TEST(CodeIndex, WordSearchRanksLinesByHowManyWordsTheyHold) {
    FixtureTree tree;
    auto index = open_index(tree);
    auto found = index.search({"warp specialized tma", SearchMode::words});
    ASSERT_TRUE(found.ok()) << found.error().message;
    ASSERT_FALSE(found->hits.empty());
    // Both lines of the example hold all three words (KernelTmaWarpSpecialized... in any case).
    ASSERT_GE(found->hits.size(), 2u);
    EXPECT_EQ(hit_places(*found)[0], "examples/48_hopper_warp_specialized_gemm/gemm.cu:2");
    EXPECT_EQ(hit_places(*found)[1], "examples/48_hopper_warp_specialized_gemm/gemm.cu:3");
    EXPECT_EQ(found->hits.front().score, 3);
    EXPECT_EQ(found->files_scanned, 1u);
    for (std::size_t i = 1; i < found->hits.size(); ++i) EXPECT_LE(found->hits[i].score, found->hits[i - 1].score);
}

TEST(CodeIndex, ABadRegexIsAnErrorAndAPathologicalOneStillEnds) {
    FixtureTree tree;
    auto index = open_index(tree);
    auto bad = index.search({"make_tma_copy("});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("the regex does not compile"), std::string::npos) << bad.error().message;
    EXPECT_FALSE(index.search({"   "}).ok());
    // Exponential for a backtracking engine on a long line of a's; linear for RE2.
    kp::codesearch::testing::write(tree.root / "include/aaaa.h", std::string(5000, 'a') + "\n");
    auto reopened = open_index(tree);
    auto slow = reopened.search({"(a+)+$b"});
    ASSERT_TRUE(slow.ok());
    EXPECT_EQ(slow->total_hits, 0u);
}

TEST(CodeIndex, NothingOutsideTheTreeIsReadOrFound) {
    FixtureTree tree;
    auto index = open_index(tree);
    // The link points out of the tree: not indexed, so neither found nor readable.
    auto marker = index.search({"TOP_SECRET_MARKER"});
    ASSERT_TRUE(marker.ok());
    EXPECT_EQ(marker->total_hits, 0u);
    EXPECT_FALSE(index.read("include/cute/leak.hpp", 1, 10).ok());
    for (const char* outside : {"../secret.txt", "/etc/passwd", "include/../../secret.txt"}) {
        auto read = index.read(outside, 1, 10);
        ASSERT_FALSE(read.ok()) << outside;
        EXPECT_NE(read.error().message.find("refused"), std::string::npos) << read.error().message;
        EXPECT_FALSE(index.list(outside).ok());
        EXPECT_FALSE(index.search({"secret", SearchMode::regex, outside}).ok());
    }
    auto binary = index.search({"\\x01\\x02"});
    ASSERT_TRUE(binary.ok());
    EXPECT_EQ(binary->total_hits, 0u);
}

TEST(CodeIndex, ListsFoldersAndFiles) {
    FixtureTree tree;
    auto index = open_index(tree);
    auto root = index.list("");
    ASSERT_TRUE(root.ok()) << root.error().message;
    ASSERT_EQ(root->size(), 2u);
    EXPECT_EQ((*root)[0].name, "examples");
    EXPECT_TRUE((*root)[0].is_folder);
    EXPECT_EQ((*root)[0].files, 1u);
    EXPECT_EQ((*root)[1].name, "include");
    EXPECT_EQ((*root)[1].files, 5u);

    auto cute = index.list("include/cute/");
    ASSERT_TRUE(cute.ok());
    std::vector<std::string> names;
    for (const auto& e : *cute) names.push_back(e.name + (e.is_folder ? "/" : ""));
    EXPECT_EQ(names, (std::vector<std::string>{"atom/", "layout.hpp", "tensor.hpp"}));
    EXPECT_EQ((*cute)[1].lines, 300u);

    EXPECT_NE(index.list("include/nothing").error().message.find("no folder"), std::string::npos);
    EXPECT_NE(index.list("include/cute/tensor.hpp").error().message.find("is a file"), std::string::npos);
}

TEST(CodeIndex, ReadsLineRangesClampedToTheFile) {
    FixtureTree tree;
    auto index = open_index(tree);
    auto lines = index.read("include/cute/layout.hpp", 10, 12);
    ASSERT_TRUE(lines.ok()) << lines.error().message;
    EXPECT_EQ(lines->total_lines, 300);
    EXPECT_EQ(lines->lines, (std::vector<std::string>{"int line_10 = 10;", "int line_11 = 11;", "int line_12 = 12;"}));

    auto tail = index.read("include/cute/layout.hpp", 299, 1000);
    ASSERT_TRUE(tail.ok());
    EXPECT_EQ(tail->last, 300);
    EXPECT_EQ(tail->lines.size(), 2u);

    EXPECT_NE(index.read("include/cute/layout.hpp", 301, 310).error().message.find("past its end"), std::string::npos);
    EXPECT_FALSE(index.read("include/cute/layout.hpp", 20, 10).ok());
    EXPECT_NE(index.read("include/cute", 1, 2).error().message.find("is a folder"), std::string::npos);
    EXPECT_NE(index.read("include/cute/missing.hpp", 1, 2).error().message.find("no file"), std::string::npos);
}
