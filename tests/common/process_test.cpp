#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

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

// A child that exits before reading its stdin must not take the parent down with SIGPIPE (the
// default action); the write reports the loss instead. Flaky before: WorkerClient's missing-
// executable test died of SIGPIPE when the exec failed faster than the request was written.
TEST(Process, WritingToAPipeWithNoReaderReturnsFalse) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    ::close(fds[0]);
    EXPECT_FALSE(kp::write_to_pipe(fds[1], std::string(1 << 16, 'x')));
    ::close(fds[1]);
    sigset_t pending;
    sigpending(&pending);
    EXPECT_FALSE(sigismember(&pending, SIGPIPE)) << "the SIGPIPE was left pending";
}

TEST(Process, WritingToAPipeDeliversEverything) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    EXPECT_TRUE(kp::write_to_pipe(fds[1], "hello"));
    ::close(fds[1]);
    char buffer[16] = {};
    EXPECT_EQ(::read(fds[0], buffer, sizeof buffer), 5);
    EXPECT_STREQ(buffer, "hello");
    ::close(fds[0]);
}
