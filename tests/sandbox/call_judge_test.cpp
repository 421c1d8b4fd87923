// The supervisor's rulings on calls handed over by the filter, with a stand-in view of the
// sandboxed process (its memory holds the strings below, its cwd is the scratch folder).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <map>

#include "sandbox/call_judge.h"

using namespace kp::sandbox;

namespace {

constexpr pid_t kMain = 100, kDriverThread = 101;

class FakeView : public ProcessView {
public:
    std::map<uint64_t, std::string> strings;
    std::map<std::string, std::string> links{{"cwd", "/tmp/scratch"}, {"fd/5", "/etc"}, {"fd/6", "pipe:[42]"}};
    std::optional<std::string> read_string(pid_t, uint64_t address) const override {
        auto it = strings.find(address);
        return it == strings.end() ? std::nullopt : std::optional(it->second);
    }
    std::optional<uint64_t> read_word(pid_t, uint64_t address) const override { return address == 900 ? O_WRONLY | O_CREAT : O_RDONLY; }
    std::optional<std::string> proc_link(pid_t, const std::string& link) const override {
        auto it = links.find(link);
        return it == links.end() ? std::nullopt : std::optional(it->second);
    }
    std::string canonical(const std::string& path) const override { return normalize_lexically(path); }
    bool exists(const std::string& path) const override { return path.find("missing") == std::string::npos; }
    std::string thread_name(pid_t t) const override { return t == kMain ? "kernelpro-worke" : "cuda-EvtHandlr"; }
    std::string object_at(pid_t, uint64_t) const override { return "libc.so.6"; }
};

struct Judge : ::testing::Test {
    FakeView view;
    FilesystemPolicy policy{{"/usr", "/proc", "/sys"}, {"/tmp/scratch"}, {"/dev/nvidia0", "/dev/null"}};
    SandboxedProcess process{{1, 2}, {kDriverThread}};

    Ruling call(int nr, std::array<uint64_t, 6> args, pid_t thread = kMain) {
        SystemCall c;
        c.nr = nr;
        c.args = args;
        c.thread = thread;
        return judge_system_call(c, policy, process, view);
    }
    Ruling open_at(const std::string& path, uint64_t flags, pid_t thread = kMain, int dirfd = AT_FDCWD) {
        view.strings[500] = path;
        return call(SYS_openat, {static_cast<uint64_t>(dirfd), 500, flags, 0, 0, 0}, thread);
    }
};

}  // namespace

TEST_F(Judge, DeniedCallsAreViolationsNamingTheCallAndItsArguments) {
    view.strings[10] = "/bin/sh";
    auto r = call(SYS_execve, {10, 0, 0, 0, 0, 0});
    EXPECT_FALSE(r.allow);
    EXPECT_TRUE(r.violation);
    EXPECT_EQ(r.error, EPERM);
    EXPECT_EQ(r.message, "sandbox: execve(\"/bin/sh\") denied: starting programs is not allowed (thread \"kernelpro-worke\", code in libc.so.6)");
    EXPECT_NE(call(SYS_socket, {AF_INET, SOCK_STREAM, 0, 0, 0, 0}).message.find("socket(AF_INET) denied: sockets are not allowed"), std::string::npos);
    EXPECT_NE(call(SYS_kill, {0, 18, 0, 0, 0, 0}).message.find("kill(pid 0, signal 18) denied: signals to other processes"), std::string::npos);
    EXPECT_NE(call(SYS_clone, {0x11, 0, 0, 0, 0, 0}).message.find("clone(flags 0x11) denied: new processes"), std::string::npos);
    EXPECT_NE(call(SYS_ptrace, {16, 7, 0, 0, 0, 0}).message.find("reaching into other processes"), std::string::npos);
}

TEST_F(Judge, PathsInsideThePolicyPassToTheKernel) {
    EXPECT_TRUE(open_at("/usr/lib/libcudart.so.13", O_RDONLY).allow);
    EXPECT_TRUE(open_at("/proc/self/maps", O_RDONLY).allow);
    EXPECT_TRUE(open_at("/proc/2/status", O_RDONLY).allow);  // one of its own threads
    EXPECT_TRUE(open_at("/dev/nvidia0", O_RDWR).allow);
    EXPECT_TRUE(open_at("out.bin", O_WRONLY | O_CREAT).allow);  // relative to the scratch folder
    EXPECT_TRUE(open_at("/tmp/scratch/sub/../x", O_RDWR).allow);
    EXPECT_TRUE(open_at("/etc/shadow", O_PATH).allow);  // a handle that can neither read nor write
    EXPECT_TRUE(open_at("/opt/missing/libcublas.so.13", O_RDONLY).allow);  // nothing there: ENOENT teaches nothing
    EXPECT_TRUE(open_at("/opt/missing/new", O_WRONLY | O_CREAT).violation);  // creating outside still is one
}

TEST_F(Judge, ReadsAndWritesOutsideAreViolations) {
    auto r = open_at("/etc/passwd", O_RDONLY);
    EXPECT_TRUE(r.violation);
    EXPECT_EQ(r.error, EACCES);
    EXPECT_NE(r.message.find("openat(\"/etc/passwd\", read) denied: outside the folders sandboxed code may read"), std::string::npos) << r.message;
    EXPECT_NE(open_at("/root/x", O_WRONLY | O_CREAT).message.find("only the scratch folder is writable"), std::string::npos);
    EXPECT_TRUE(open_at("/usr/lib/x", O_RDWR).violation);            // read-only folder opened for writing
    EXPECT_TRUE(open_at("/proc/sys/kernel/x", O_WRONLY).violation);  // /proc is read-only
    EXPECT_TRUE(open_at("passwd", O_RDONLY, kMain, 5).violation);    // relative to a descriptor on /etc
    EXPECT_TRUE(open_at("/tmp/scratch/../../etc/passwd", O_RDONLY).violation);
}

TEST_F(Judge, ProcLinksAreFollowedAndOtherProcessesAreOffLimits) {
    auto r = open_at("/proc/self/cwd/../../etc/passwd", O_RDONLY);
    EXPECT_TRUE(r.violation);
    EXPECT_NE(r.message.find("\"/etc/passwd\""), std::string::npos) << r.message;
    EXPECT_TRUE(open_at("/proc/thread-self/fd/5/hostname", O_RDONLY).violation);
    auto other = open_at("/proc/0/mem", O_RDONLY);
    EXPECT_TRUE(other.violation);
    EXPECT_NE(other.message.find("the /proc entry of another process"), std::string::npos) << other.message;
    EXPECT_TRUE(open_at("/proc/self/task/77/mem", O_RDONLY).violation);
    EXPECT_TRUE(open_at("/proc/self/fd/6", O_RDONLY).allow);  // a pipe: nothing on the filesystem
}

TEST_F(Judge, ThreadsFromBeforeTheSandboxAreNotedNotEnded) {
    auto read = open_at("/etc/nvidia/params", O_RDONLY, kDriverThread);
    EXPECT_TRUE(read.allow);
    EXPECT_FALSE(read.violation);
    EXPECT_TRUE(read.note);
    EXPECT_NE(read.message.find("let through (a thread from before the sandbox): outside"), std::string::npos) << read.message;
    EXPECT_NE(read.message.find("cuda-EvtHandlr"), std::string::npos) << read.message;
    view.strings[10] = "/bin/sh";
    auto exec = call(SYS_execve, {10, 0, 0, 0, 0, 0}, kDriverThread);
    EXPECT_FALSE(exec.allow);
    EXPECT_EQ(exec.error, EPERM);
    EXPECT_FALSE(exec.violation);
    EXPECT_TRUE(exec.note);
    EXPECT_TRUE(open_at("/etc/x", O_WRONLY | O_CREAT, kDriverThread).violation);  // writes outside stay violations
    EXPECT_FALSE(open_at("/usr/lib/x", O_RDONLY, kDriverThread).note);
}

TEST_F(Judge, TheOtherPathCallsAndOpenat2) {
    view.strings[20] = "/etc/kp";
    view.strings[21] = "/tmp/scratch/link";
    EXPECT_TRUE(call(SYS_mkdirat, {static_cast<uint64_t>(AT_FDCWD), 20, 0755, 0, 0, 0}).violation);
    EXPECT_TRUE(call(SYS_unlinkat, {static_cast<uint64_t>(AT_FDCWD), 21, 0, 0, 0, 0}).allow);
    EXPECT_TRUE(call(SYS_linkat, {static_cast<uint64_t>(AT_FDCWD), 20, static_cast<uint64_t>(AT_FDCWD), 21, 0, 0}).violation);
    EXPECT_TRUE(call(SYS_symlinkat, {20, static_cast<uint64_t>(AT_FDCWD), 21, 0, 0, 0}).allow);  // the target is only text
    view.strings[500] = "/usr/include/x";
    EXPECT_TRUE(call(SYS_openat2, {static_cast<uint64_t>(AT_FDCWD), 500, 901, 24, 0, 0}).allow);      // open_how: read
    EXPECT_TRUE(call(SYS_openat2, {static_cast<uint64_t>(AT_FDCWD), 500, 900, 24, 0, 0}).violation);  // open_how: create
}

TEST_F(Judge, TheDriversDeviceNodesAreRefusedButOnlyNoted) {
    // What CUPTI's range profiler does from the main thread on the H200.
    view.strings[600] = "/dev/char/195:0";
    auto r = call(SYS_unlinkat, {static_cast<uint64_t>(AT_FDCWD), 600, 0, 0, 0, 0});
    EXPECT_FALSE(r.allow);
    EXPECT_FALSE(r.violation);
    EXPECT_TRUE(r.note);
    EXPECT_EQ(r.error, EACCES);
    EXPECT_NE(r.message.find("unlinkat(\"/dev/char/195:0\", write) denied (the driver's device nodes)"), std::string::npos) << r.message;
    EXPECT_TRUE(open_at("/dev/nvidia-uvm-new", O_WRONLY | O_CREAT).note);
    EXPECT_TRUE(open_at("/dev/shm/x", O_WRONLY | O_CREAT).violation);  // other device folders stay violations
}
