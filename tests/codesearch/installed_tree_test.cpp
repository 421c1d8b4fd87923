// The tools on the installed CUTLASS tree (scripts/setup installs PyPI's nvidia-cutlass): the
// index built cold, then queries, with their times printed for the CI log. Skips, saying why,
// where no tree is installed.
#include <gtest/gtest.h>

#include <iostream>

#include <fmt/format.h>

#include "codesearch/code_search_tools.h"
#include "common/files.h"
#include "common/process.h"

using namespace kp::codesearch;

namespace {

// $KERNELPRO_CUTLASS_DIR, else where Python finds the cutlass_library package (not imported).
std::filesystem::path installed_tree() {
    std::filesystem::path root;
    if (const char* dir = std::getenv("KERNELPRO_CUTLASS_DIR"); dir && *dir) root = dir;
    else {
        auto found = kp::run_process({"python3", "-c",
                                      "import importlib.util as u; s = u.find_spec('cutlass_library'); "
                                      "print(s.submodule_search_locations[0] if s else '')"},
                                     {});
        if (found && found->exit_code == 0) root = found->stdout_text.substr(0, found->stdout_text.find('\n'));
    }
    std::error_code ec;
    if (!root.empty() && std::filesystem::is_directory(root / "source" / "include" / "cutlass", ec)) root /= "source";
    return !root.empty() && std::filesystem::is_directory(root / "include" / "cute", ec) ? root : std::filesystem::path();
}

}  // namespace

TEST(InstalledCutlassTree, IndexBuildAndQueryTimes) {
    const auto tree = installed_tree();
    if (tree.empty()) GTEST_SKIP() << "no CUTLASS tree: set KERNELPRO_CUTLASS_DIR or pip install nvidia-cutlass";
    auto cache = kp::ScratchDirectory::create("kp-codesearch-installed");
    ASSERT_TRUE(cache.ok());
    auto index = CodeIndex::open(tree, {cache->path()});
    ASSERT_TRUE(index.ok()) << index.error().message;
    const auto& s = index->stats();
    std::cout << fmt::format("index of {}: {} files, {} lines, {:.1f} MB, built in {:.2f} s\n", tree.string(), s.files,
                             s.lines, s.bytes / 1e6, s.build_seconds);
    EXPECT_GT(s.files, 1000u);
    auto reused = CodeIndex::open(tree, {cache->path()});
    ASSERT_TRUE(reused.ok());
    EXPECT_TRUE(reused->stats().reused);
    std::cout << fmt::format("reused after a {:.3f} s check of the tree\n", reused->stats().check_seconds);

    for (const SearchQuery& query : {SearchQuery{R"(make_tma_copy\()"}, SearchQuery{"SM90_64x128x16_F32BF16BF16_SS"},
                                     SearchQuery{"KernelTmaWarpSpecialized(Cooperative|Pingpong)"},
                                     SearchQuery{"grouped gemm ptr array", SearchMode::words}}) {
        auto result = reused->search(query);
        ASSERT_TRUE(result.ok()) << result.error().message;
        EXPECT_GT(result->total_hits, 0u) << query.pattern;
        std::cout << fmt::format("query \"{}\": {} lines in {} files, {:.1f} ms ({} files scanned)\n", query.pattern,
                                 result->total_hits, result->files_with_hits, result->seconds * 1e3, result->files_scanned);
    }
    auto tma = reused->search({R"(make_tma_copy\()", SearchMode::regex, "include/cute/atom"});
    ASSERT_TRUE(tma.ok());
    ASSERT_FALSE(tma->hits.empty());
    EXPECT_EQ(tma->hits.front().path, "include/cute/atom/copy_traits_sm90_tma.hpp");
}
