// The filter's description of the calls it hands over, and the filter itself in a child process:
// denied calls fail with EPERM, everything else (threads, files, memory) keeps working.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "sandbox/seccomp_filter.h"

using namespace kp::sandbox;

TEST(SeccompFilter, DescribesTheCallsItDenies) {
    auto exec = describe_system_call(SYS_execve);
    EXPECT_EQ(exec.name, "execve");
    EXPECT_EQ(exec.reason, "starting programs is not allowed");
    EXPECT_FALSE(exec.names_a_path);
    auto open = describe_system_call(SYS_openat);
    EXPECT_TRUE(open.names_a_path);
    EXPECT_EQ(describe_system_call(SYS_socket).reason, "sockets are not allowed (no network)");
    EXPECT_EQ(describe_system_call(SYS_read).reason, "");
}

namespace {
// Runs `body` in a forked child under the EPERM form of the filter; returns its exit code.
int in_filtered_child(bool profiler_attached, int (*body)()) {
    pid_t child = ::fork();
    if (child == 0) {
        auto loaded = load_seccomp_filter({false, profiler_attached, ::getpid()});
        if (!loaded) ::_exit(90);
        ::_exit(body());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}
}  // namespace

TEST(SeccompFilter, DeniedCallsFailWithEpermAndTheRestWorks) {
    EXPECT_EQ(in_filtered_child(false, [] {
                  if (::fork() != -1 || errno != EPERM) return 1;
                  if (::socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != EPERM) return 2;
                  if (::kill(::getppid(), 0) != -1 || errno != EPERM) return 3;
                  if (::kill(::getpid(), 0) != 0) return 4;  // itself: allowed
                  char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
                  if (::execve("/bin/true", argv, nullptr) != -1 || errno != EPERM) return 5;
                  int value = 0;
                  std::thread([&] { value = 7; }).join();  // clone with CLONE_THREAD
                  if (value != 7) return 6;
                  int fd = ::open("/proc/self/status", O_RDONLY);
                  if (fd < 0) return 7;
                  ::close(fd);
                  if (::syscall(SYS_clone3, nullptr, 0) != -1 || errno != ENOSYS) return 8;
                  return 0;
              }),
              0);
}

TEST(SeccompFilter, WithAProfilerAttachedSocketsStayAllowed) {
    EXPECT_EQ(in_filtered_child(true, [] {
                  int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
                  if (s < 0) return 1;
                  ::close(s);
                  return ::fork() == -1 && errno == EPERM ? 0 : 2;
              }),
              0);
}
