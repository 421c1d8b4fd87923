// Children die with kernelpro: a process that installed install_child_cleanup() and is running a
// tool tree (here `sh` with a background `sleep`, standing in for nvcc with cudafe++ and cicc)
// is sent SIGTERM or SIGINT; the whole tree must be gone, and the process must end by the signal.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "common/child_processes.h"
#include "common/files.h"
#include "common/process.h"

namespace fs = std::filesystem;

namespace {

// Running, as opposed to gone or a zombie (an init that does not reap would keep zombies around).
bool alive(pid_t pid) {
    if (::kill(pid, 0) != 0) return false;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string pid_text, name, state;
    return !(stat >> pid_text >> name >> state) || state != "Z";
}

// Forks a "kernelpro" that runs a two-process tool tree; returns its pid and the tree's pids.
std::pair<pid_t, std::vector<pid_t>> start_tool_tree(const fs::path& pid_file) {
    pid_t orchestrator = ::fork();
    if (orchestrator == 0) {
        kp::install_child_cleanup();
        std::string script = "sleep 60 & echo $$ $! > " + pid_file.string() + ".tmp; mv " + pid_file.string() +
                             ".tmp " + pid_file.string() + "; wait";
        kp::ProcessOptions options;
        options.timeout = std::chrono::seconds(60);
        (void)kp::run_process({"sh", "-c", script}, options);
        _exit(0);
    }
    std::vector<pid_t> tree;
    for (int i = 0; i < 200 && tree.empty(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        std::ifstream in(pid_file);
        pid_t shell = 0, sleeper = 0;
        if (in >> shell >> sleeper) tree = {shell, sleeper};
    }
    return {orchestrator, tree};
}

bool gone_within(const std::vector<pid_t>& pids, std::chrono::milliseconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        bool any = false;
        for (pid_t p : pids) any = any || alive(p);
        if (!any) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

}  // namespace

class ChildCleanup : public testing::TestWithParam<int> {};

TEST_P(ChildCleanup, SignalKillsTheToolTreeAndEndsTheProcess) {
    auto dir = kp::ScratchDirectory::create("kp-child-cleanup").value();
    auto [orchestrator, tree] = start_tool_tree(dir.path() / "pids");
    ASSERT_EQ(tree.size(), 2u) << "the tool tree did not start";
    ASSERT_TRUE(alive(tree[0]) && alive(tree[1]));
    ::kill(orchestrator, GetParam());
    int status = 0;
    ASSERT_EQ(::waitpid(orchestrator, &status, 0), orchestrator);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == GetParam()) << "status " << status;
    // The shell was its child: once reaped by init it is gone; the background sleep was a grandchild.
    EXPECT_TRUE(gone_within(tree, std::chrono::seconds(5))) << "tool processes outlived kernelpro";
}

INSTANTIATE_TEST_SUITE_P(Signals, ChildCleanup, testing::Values(SIGTERM, SIGINT, SIGHUP));

TEST(ChildCleanup, SigkillOfTheParentKillsTheDirectChildToo) {
    auto dir = kp::ScratchDirectory::create("kp-child-cleanup").value();
    auto [orchestrator, tree] = start_tool_tree(dir.path() / "pids");
    ASSERT_EQ(tree.size(), 2u);
    ::kill(orchestrator, SIGKILL);  // no handler runs: PR_SET_PDEATHSIG is what ends the child
    int status = 0;
    ::waitpid(orchestrator, &status, 0);
    EXPECT_TRUE(gone_within({tree[0]}, std::chrono::seconds(5))) << "the direct child outlived a SIGKILLed parent";
    ::kill(tree[1], SIGKILL);  // a grandchild is beyond PDEATHSIG's reach (documented)
}

TEST(UniqueDirectory, ConcurrentCallersGetDistinctFolders) {
    auto dir = kp::ScratchDirectory::create("kp-unique-dir").value();
    std::vector<std::string> made(8);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < made.size(); ++i)
        threads.emplace_back([&, i] { made[i] = kp::create_unique_directory(dir.path() / "out" / "task-20260101-000000").value(); });
    for (auto& t : threads) t.join();
    std::sort(made.begin(), made.end());
    EXPECT_EQ(std::unique(made.begin(), made.end()), made.end());
    EXPECT_TRUE(fs::is_directory(dir.path() / "out" / "task-20260101-000000"));
    EXPECT_TRUE(fs::is_directory(dir.path() / "out" / "task-20260101-000000-8"));
}
