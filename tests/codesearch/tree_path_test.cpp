// Paths inside a tree: normalized, or refused when they leave it.
#include <gtest/gtest.h>

#include "codesearch/tree_path.h"

using kp::codesearch::is_within;
using kp::codesearch::normalize_tree_path;

TEST(TreePath, NormalizesRelativePaths) {
    EXPECT_EQ(*normalize_tree_path("include/cute/./atom/../tensor.hpp"), "include/cute/tensor.hpp");
    EXPECT_EQ(*normalize_tree_path("  examples/ "), "examples");
    EXPECT_EQ(*normalize_tree_path(""), "");
    EXPECT_EQ(*normalize_tree_path("."), "");
    EXPECT_EQ(*normalize_tree_path("./"), "");
}

TEST(TreePath, RefusesPathsOutsideTheTree) {
    for (const char* bad : {"/etc/passwd", "../secret.txt", "..", "include/../../x", "~/.ssh/id_rsa"}) {
        auto refused = normalize_tree_path(bad);
        ASSERT_FALSE(refused.ok()) << bad;
        EXPECT_NE(refused.error().message.find("outside the tree"), std::string::npos) << refused.error().message;
    }
    EXPECT_FALSE(normalize_tree_path(std::string("a\0b", 3)).ok());
}

TEST(TreePath, WithinMeansTheFolderOrBelowIt) {
    EXPECT_TRUE(is_within("include/cute/tensor.hpp", "include/cute"));
    EXPECT_TRUE(is_within("include/cute", "include/cute"));
    EXPECT_TRUE(is_within("anything", ""));
    EXPECT_FALSE(is_within("include/cutlass/x.h", "include/cute"));
}
