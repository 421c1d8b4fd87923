#include <gtest/gtest.h>

#include "common/hash.h"
#include "common/process.h"

using namespace kp;

TEST(Process, CapturesOutputAndExitCode) {
    auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->exit_code, 3);
    EXPECT_EQ(r->stdout_text, "out\n");
    EXPECT_EQ(r->stderr_text, "err\n");
    EXPECT_FALSE(r->succeeded());
    EXPECT_NE(r->describe_failure().find("exited with 3"), std::string::npos);
}

TEST(Process, TimeoutKillsTheWholeGroup) {
    ProcessOptions options;
    options.timeout = std::chrono::milliseconds(300);
    auto r = run_process({"sh", "-c", "sleep 30 & sleep 30"}, options);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->timed_out);
    EXPECT_LT(r->wall_seconds, 5.0);
}

TEST(Process, MissingProgramIsAnError) {
    auto r = run_process({"no-such-program-kp"});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("not found"), std::string::npos);
}

TEST(Process, StdinAndEnvironment) {
    ProcessOptions options;
    options.stdin_data = "hello";
    options.extra_environment["KP_TEST_VAR"] = "42";
    auto r = run_process({"sh", "-c", "cat; echo $KP_TEST_VAR"}, options);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->stdout_text, "hello42\n");
}

TEST(Process, ShellQuote) {
    EXPECT_EQ(shell_quote("abc"), "abc");
    EXPECT_EQ(shell_quote("a b"), "'a b'");
    EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}
