#include <gtest/gtest.h>

#include "build/tunables.h"

using namespace kp;

TEST(Tunables, ParsesDeclarationsAndConstraints) {
    auto space = parse_tunables("#include <x>\n// kp:tune BLOCK=128,256,512 VEC=1,2,4\n//kp:tune UNROLL=1,2\n"
                                "// kp:constraint BLOCK*VEC <= 1024\n__global__ void k() {}\n");
    ASSERT_TRUE(space.ok()) << space.error().message;
    ASSERT_EQ(space->parameters.size(), 3u);
    EXPECT_EQ(space->parameters[0].name, "BLOCK");
    EXPECT_EQ(space->parameters[1].values, (std::vector<std::string>{"1", "2", "4"}));
    EXPECT_EQ(space->size(), 18u);
    EXPECT_TRUE(satisfies_constraints(*space, {{"BLOCK", "256"}, {"VEC", "4"}, {"UNROLL", "1"}}));
    EXPECT_FALSE(satisfies_constraints(*space, {{"BLOCK", "512"}, {"VEC", "4"}, {"UNROLL", "1"}}));
}

TEST(Tunables, ErrorsNameTheLine) {
    auto space = parse_tunables("\n\n// kp:tune BLOCK 128\n");
    ASSERT_FALSE(space.ok());
    EXPECT_NE(space.error().message.find("line 3"), std::string::npos);
    EXPECT_FALSE(parse_tunables("// kp:tune A=1\n// kp:tune A=2\n").ok());
}

TEST(Tunables, ExpressionEvaluator) {
    ParameterValues v{{"A", "6"}, {"B", "4"}};
    EXPECT_EQ(evaluate_expression("A*B + 2", v).value(), 26);
    EXPECT_EQ(evaluate_expression("(A+B)%4 == 2 && A > B", v).value(), 1);
    EXPECT_EQ(evaluate_expression("-A / 4", v).value(), -1);
    EXPECT_FALSE(evaluate_expression("A / 0", v).ok());
    EXPECT_FALSE(evaluate_expression("C + 1", v).ok());
    EXPECT_FALSE(evaluate_expression("A +", v).ok());
    EXPECT_EQ(define_flags(v), (std::vector<std::string>{"-DA=6", "-DB=4"}));
}

TEST(Tunables, OverflowAndHugeNumbersFailInsteadOfWrapping) {
    kp::ParameterValues v{{"N", "9223372036854775807"}};
    EXPECT_FALSE(kp::evaluate_expression("N + 1", v).ok());
    EXPECT_FALSE(kp::evaluate_expression("N * 2", v).ok());
    EXPECT_FALSE(kp::evaluate_expression("-N - 2", v).ok());
    EXPECT_FALSE(kp::evaluate_expression("99999999999999999999 > 0", v).ok());  // threw std::out_of_range before
    EXPECT_EQ(kp::evaluate_expression("N - 1 < N", v).value(), 1);
    EXPECT_FALSE(kp::evaluate_expression(std::string(5000, '(') + "1" + std::string(5000, ')'), v).ok());
}

TEST(Tunables, ValuesMustBePrintableAscii) {
    auto space = kp::parse_tunables("// kp:tune T=float,__half\n// kp:tune X=1,\xff\n");
    ASSERT_FALSE(space.ok());
    EXPECT_EQ(space.error().message, "line 2: X value '\xEF\xBF\xBD' must be printable ASCII (it becomes -DX=VALUE)");
}
