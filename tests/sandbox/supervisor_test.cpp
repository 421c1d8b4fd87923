// The supervisor against a real filtered child, without the worker: a thread that predates the
// filter is only noted when it tries a denied call; the main thread (where candidate code runs)
// trying one ends the child, and the supervisor says what it tried.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "sandbox/seccomp_filter.h"
#include "sandbox/supervisor.h"

using namespace kp::sandbox;

namespace {
void child_main(int control) {
    int go[2];
    if (::pipe(go) != 0) ::_exit(91);
    std::thread older([&] {  // like a CUDA driver thread: started before the sandbox
        char c = 0;
        if (::read(go[0], &c, 1) != 1) ::_exit(92);
        char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
        ::execve("/bin/true", argv, nullptr);  // denied with EPERM, noted
    });
    auto filter = load_seccomp_filter({true, false, ::getpid()});
    if (!filter) ::_exit(93);
    FilesystemPolicy policy;
    policy.read_only = {"/usr", "/proc"};
    if (!send_ready(control, filter->listener, policy)) ::_exit(94);
    ::close(filter->listener);
    ::close(control);
    if (::write(go[1], "x", 1) != 1) ::_exit(95);
    older.join();
    char* argv[] = {const_cast<char*>("/bin/sh"), nullptr};
    ::execve("/bin/sh", argv, nullptr);  // the candidate's turn: a violation
    ::_exit(0);
}
}  // namespace

TEST(Supervisor, NotesOlderThreadsAndEndsTheChildOnAViolation) {
    if (!seccomp_notification_available()) GTEST_SKIP() << "no seccomp user notification with TSYNC here";
    int pair[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair), 0);
    int on = 1;
    ::setsockopt(pair[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    pid_t child = ::fork();
    if (child == 0) {
        ::close(pair[0]);
        child_main(pair[1]);
    }
    ::close(pair[1]);
    SupervisionEnd end = supervise(child, pair[0]);
    ::close(pair[0]);
    EXPECT_EQ(end.kind, SupervisionEnd::Kind::violation) << "child ended with status " << end.wait_status;
    EXPECT_NE(end.message.find("execve(\"/bin/sh\") denied: starting programs is not allowed"), std::string::npos) << end.message;
    ASSERT_EQ(end.notes.size(), 1u);
    EXPECT_NE(end.notes[0].find("execve(\"/bin/true\") denied (a thread from before the sandbox)"), std::string::npos) << end.notes[0];
}
