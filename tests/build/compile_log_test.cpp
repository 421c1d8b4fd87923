#include <gtest/gtest.h>

#include "build/compile_log.h"

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
    std::string trimmed = kp::trim_compile_log(log, {10, 4000, 0});
    EXPECT_LE(std::count(trimmed.begin(), trimmed.end(), '\n'), 11);
    EXPECT_NE(trimmed.find("more lines"), std::string::npos);
}
