// The escape suite without a GPU: each goal of escape_candidate.cu by each of its four routes, as
// host code in the real worker's sandbox (sandbox_check mode, no static guard in front). Every one
// must end rejected_by_sandbox with a reason naming what was tried, and leave nothing behind.
#include <gtest/gtest.h>

#include <tuple>

#include "sandbox_fixture.h"

using namespace kp;
using namespace kp::testing;

namespace {

const char* const kRoutes[] = {"", "libc symbols", "raw syscall in its own section", "libc symbol table walked from memcpy",
                               "dlsym found by that walk"};

struct Goal {
    const char* what;
    std::vector<std::string> reason;  // all of these appear in the verdict
};

Goal goal(int g) {
    switch (g) {
        case 1: return {"create a file in $HOME", {"write", "only the scratch folder is writable"}};
        case 2: return {"create a file in /etc", {"/etc/kp-escape-etc", "only the scratch folder is writable"}};
        case 3: return {"read /etc/passwd", {"/etc/passwd", "outside the folders sandboxed code may read"}};
        case 4: return {"read the run store", {"runs.db", "outside the folders sandboxed code may read"}};
        case 5: return {"create a file outside the scratch folder", {"kp-escape-outside", "only the scratch folder is writable"}};
        case 6: return {"connect to a loopback socket", {"socket(AF_INET)", "sockets are not allowed"}};
        case 7: return {"fork and exec", {"new processes are not allowed"}};
        case 8: return {"exec a program", {"execve(\"/bin/sh\")", "starting programs is not allowed"}};
        case 9: return {"signal the parent", {"kill(", "signals to other processes"}};
        case 10: return {"ptrace the parent", {"ptrace(", "reaching into other processes"}};
        case 11: return {"read /proc/<parent>/mem", {"/mem", "the /proc entry of another process"}};
        case 12: return {"forge a verdict on the result channel", {"did not write", "speedup"}};
    }
    return {"?", {}};
}

class EscapeSuite : public ::testing::TestWithParam<std::tuple<int, int>> {};

}  // namespace

TEST_P(EscapeSuite, IsRejectedWithTheReasonAndLeavesNothingBehind) {
    auto [g, route] = GetParam();
    EscapeWorld world;
    auto outcome = run_in_sandbox(escape_library(g, route));
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    auto sandbox = sandbox::SandboxReport::from_json(outcome->sandbox);
    const auto* seccomp = sandbox.find("seccomp");
    if (seccomp && seccomp->detail.find("reported by the supervisor") == std::string::npos)
        GTEST_SKIP() << "seccomp here cannot report violations: " << seccomp->detail;
    std::printf("[escape] goal %2d %-42s route %d %-38s -> %s: %s\n", g, goal(g).what, route, kRoutes[route],
                failure_class_name(outcome->status), outcome->message.substr(0, 160).c_str());
    EXPECT_EQ(outcome->status, FailureClass::RejectedBySandbox) << goal(g).what << " by " << kRoutes[route] << ": "
                                                               << outcome->message << "\nworker log:\n" << outcome->log;
    for (const auto& word : goal(g).reason) EXPECT_NE(outcome->message.find(word), std::string::npos) << word << " in " << outcome->message;
    EXPECT_EQ(world.traces(), std::vector<std::string>{}) << goal(g).what << " by " << kRoutes[route] << " left traces";
}

INSTANTIATE_TEST_SUITE_P(EveryGoalByEveryRoute, EscapeSuite, ::testing::Combine(::testing::Range(1, 13), ::testing::Range(1, 5)),
                         [](const auto& info) {
                             return "goal" + std::to_string(std::get<0>(info.param)) + "_route" + std::to_string(std::get<1>(info.param));
                         });

TEST(EscapeSuite, HonestHostCodeRunsUntouched) {
    auto outcome = run_in_sandbox(std::string(KP_ESCAPE_LIBRARY_DIR) + "/sandbox_honest.so");
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(outcome->status, FailureClass::Ok) << outcome->message << "\n" << outcome->log;
    EXPECT_EQ(outcome->result.value("returned", -1), 0) << "a thread, memory, a scratch file, /proc/self or the clock failed";
}
