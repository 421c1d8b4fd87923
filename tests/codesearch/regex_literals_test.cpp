// The substrings a regex requires: only ones every match contains, or none (scan everything).
#include <gtest/gtest.h>

#include "codesearch/regex_literals.h"

using kp::codesearch::required_literals;
using Literals = std::vector<std::string>;

TEST(RequiredLiterals, PlainRunsOfThreeOrMoreCharacters) {
    EXPECT_EQ(required_literals("make_tma_copy"), Literals{"make_tma_copy"});
    EXPECT_EQ(required_literals("SM90_TMA_LOAD.*cluster"), (Literals{"SM90_TMA_LOAD", "cluster"}));
    EXPECT_EQ(required_literals("ab.cd"), Literals{});  // runs shorter than a trigram narrow nothing
}

TEST(RequiredLiterals, QuantifiersMakeTheirCharacterOptional) {
    EXPECT_EQ(required_literals("colou?r_space"), (Literals{"colo", "r_space"}));
    EXPECT_EQ(required_literals("abcx*def"), (Literals{"abc", "def"}));
    EXPECT_EQ(required_literals("abcx{0,3}def"), (Literals{"abc", "def"}));
    EXPECT_EQ(required_literals("abcd+ef"), (Literals{"abcd"}));  // d occurs at least once
}

TEST(RequiredLiterals, EscapesClassesAndGroups) {
    EXPECT_EQ(required_literals(R"(make_tma_copy\(copy)"), Literals{"make_tma_copy(copy"});
    EXPECT_EQ(required_literals(R"(tile\d+_size)"), (Literals{"tile", "_size"}));
    EXPECT_EQ(required_literals(R"(\x41BCD)"), Literals{"BCD"});  // the hex code is no literal
    EXPECT_EQ(required_literals("gemm[_ ]kernel"), (Literals{"gemm", "kernel"}));
    EXPECT_EQ(required_literals("(?i)warpgroup"), Literals{"warpgroup"});
    EXPECT_EQ(required_literals("pre(fix|lude)_tail"), (Literals{"pre", "_tail"}));
}

TEST(RequiredLiterals, AlternationAndBrokenPatternsRequireNothing) {
    EXPECT_EQ(required_literals("SM90_TMA_LOAD|SM90_TMA_STORE"), Literals{});
    EXPECT_EQ(required_literals("abc(def"), Literals{});
    EXPECT_EQ(required_literals("abc[def"), Literals{});
    EXPECT_EQ(required_literals(R"(\Qa.b\E)"), Literals{});
}
