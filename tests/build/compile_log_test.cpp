#include <gtest/gtest.h>

#include "build/compile_log.h"

#include <fstream>
#include <sstream>

#include "../source_tree.h"

TEST(CompileLog, KeepsErrorsWithContextAndShortensPaths) {
    std::string log =
        "/tmp/kp/abc/candidate.cu(12): warning #177-D: variable \"x\" was declared but never referenced\n"
        "/tmp/kp/abc/candidate.cu(20): error: identifier \"foo\" is undefined\n"
        "      y = foo(3);\n"
        "          ^\n"
        "\n"
        "1 error detected in the compilation of \"/tmp/kp/abc/candidate.cu\".\n";
    std::string trimmed = kp::trim_compile_log(log);
    EXPECT_NE(trimmed.find("candidate.cu(20): error: identifier \"foo\" is undefined"), std::string::npos) << trimmed;
    EXPECT_NE(trimmed.find("y = foo(3);"), std::string::npos);
    EXPECT_EQ(trimmed.find("/tmp/kp"), std::string::npos);
    EXPECT_EQ(trimmed.find("warning"), std::string::npos);
}

TEST(CompileLog, BoundsLength) {
    std::string log;
    for (int i = 0; i < 500; ++i) log += "a.cu(" + std::to_string(i) + "): error: bad thing " + std::to_string(i) + "\n";
    std::string trimmed = kp::trim_compile_log(log, {10, 4000});
    EXPECT_LE(std::count(trimmed.begin(), trimmed.end(), '\n'), 11);
    EXPECT_NE(trimmed.find("and 494 more errors"), std::string::npos) << trimmed;
    kp::TrimOptions tight;
    tight.max_lines = 3;
    EXPECT_NE(kp::trim_compile_log(log, tight).find("more lines"), std::string::npos);
}

namespace {
std::string fixture(const std::string& name) {
    std::ifstream in(kp::testing::source_path("tests/fixtures/cutlass") / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}
size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}
}  // namespace

// Recorded nvcc 13.0 errors of broken CuTe code (tests/fixtures/cutlass/README.md): the first
// error keeps what explains it and the frame in the candidate, nothing of the 20 kB around it.
TEST(CompileLog, CuteRankMismatchKeepsTheAssertionAndTheCandidatesLine) {
    std::string log = fixture("cute_error_rank_mismatch.log");
    ASSERT_GT(log.size(), 20000u);
    std::string trimmed = kp::trim_compile_log(log);
    EXPECT_EQ(trimmed.rfind("stride.hpp(108): error: static assertion failed with \"Mismatched Ranks\"", 0), 0u) << trimmed;
    EXPECT_NE(trimmed.find("static_assert(tuple_size<Coord>::value == tuple_size< Shape>::value"), std::string::npos) << trimmed;
    // The innermost frame, then the one in the candidate: line 7 is `t(1, 2, 3) = 0.0f;`.
    EXPECT_NE(trimmed.find("instantiation of \"auto cute::crd2idx("), std::string::npos) << trimmed;
    EXPECT_NE(trimmed.find("at line 7 of candidate.cu"), std::string::npos) << trimmed;
    EXPECT_NE(trimmed.find("instantiation frames inside library headers"), std::string::npos) << trimmed;
    EXPECT_NE(trimmed.find("later errors (often consequences of the first):"), std::string::npos);
    EXPECT_EQ(trimmed.find("/root/"), std::string::npos);
    EXPECT_LT(trimmed.size(), 4000u);
    EXPECT_LT(trimmed.size() * 8, log.size());
}

TEST(CompileLog, CuteStrideMismatchNamesTheCandidatesLine) {
    std::string trimmed = kp::trim_compile_log(fixture("cute_error_stride_not_congruent.log"));
    EXPECT_EQ(trimmed.rfind("stride.hpp(116): error: static assertion failed with \"Mismatched Ranks\"", 0), 0u) << trimmed;
    EXPECT_NE(trimmed.find("at line 7 of candidate.cu"), std::string::npos) << trimmed;  // `t(0) = 1.0f;`
    EXPECT_EQ(count(trimmed, "detected during:"), 1u) << trimmed;
}

TEST(CompileLog, CuteOverloadErrorKeepsArgumentTypesNotTheCandidateList) {
    std::string trimmed = kp::trim_compile_log(fixture("cute_error_gemm_no_overload.log"));
    EXPECT_EQ(trimmed.rfind("candidate.cu(8): error: no instance of overloaded function \"gemm\" matches the argument list", 0), 0u)
        << trimmed;
    EXPECT_NE(trimmed.find("argument types are: (cute::Tensor<"), std::string::npos) << trimmed;
    EXPECT_NE(trimmed.find("gemm(tA, tB, tC, 1.0f);"), std::string::npos) << trimmed;
    EXPECT_EQ(trimmed.find("note #3322-D"), std::string::npos) << trimmed;  // the candidates nvcc lists
}
