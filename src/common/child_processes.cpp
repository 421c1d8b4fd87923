#include "common/child_processes.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <array>
#include <atomic>

namespace kp {

namespace {

// Fixed slots of plain atomics: the signal handler may read them at any moment, without locks.
constexpr int kSlots = 512;
std::array<std::atomic<pid_t>, kSlots> g_groups{};
std::atomic<bool> g_installed{false};

extern "C" void on_termination_signal(int signal_number) {
    kill_child_groups();
    // End the way the signal says (exit status 128 + N for the shell), with the default action.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    ::sigaction(signal_number, &default_action, nullptr);
    ::raise(signal_number);
}

}  // namespace

void install_child_cleanup() {
    if (g_installed.exchange(true)) return;
    struct sigaction action {};
    action.sa_handler = on_termination_signal;
    sigemptyset(&action.sa_mask);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal_number, &action, nullptr);
}

void kill_child_groups() {
    for (auto& slot : g_groups) {
        pid_t group = slot.load();
        if (group > 0) ::kill(-group, SIGKILL);
    }
}

ChildGroupRegistration::ChildGroupRegistration(pid_t group) {
    for (int i = 0; i < kSlots; ++i) {
        pid_t empty = 0;
        if (g_groups[i].compare_exchange_strong(empty, group)) {
            slot_ = i;
            return;
        }
    }
    // More than kSlots children at once: this one is still killed by its timeout and PDEATHSIG.
}

ChildGroupRegistration::~ChildGroupRegistration() {
    if (slot_ >= 0) g_groups[slot_].store(0);
}

void prepare_child_after_fork(pid_t parent) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(127);  // the parent died before prctl took effect
}

}  // namespace kp
