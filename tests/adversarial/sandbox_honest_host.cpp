// What honest code and the CUDA driver do at run time, which the sandbox must let through: a thread
// (clone with CLONE_THREAD), memory, a file in the scratch folder (the working directory), /proc
// of its own process (also by number), the time. kp_forward returns 0 when all of it worked.
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <kernelpro/abi.h>

namespace {
void* work(void* arg) {
    *static_cast<int*>(arg) = 42;
    return nullptr;
}
}  // namespace

KP_EXPORT int kp_forward(const kp_tensor*, int, kp_tensor*, int, cudaStream_t) {
    int value = 0;
    pthread_t thread;
    if (pthread_create(&thread, nullptr, work, &value) != 0 || pthread_join(thread, nullptr) != 0 || value != 42) return 1;
    void* memory = malloc(64 << 20);
    if (!memory) return 2;
    free(memory);
    int fd = open("scratch-file", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "ok\n", 3) != 3 || close(fd) != 0) return 3;
    char status[256];
    fd = open("/proc/self/status", O_RDONLY);
    if (fd < 0 || read(fd, status, sizeof status) <= 0) return 4;
    close(fd);
    // Its own /proc entry by number (1 inside its pid namespace) is its own, not another process's.
    char own[64];
    snprintf(own, sizeof own, "/proc/%d/status", static_cast<int>(getpid()));
    fd = open(own, O_RDONLY);
    if (fd < 0) return 6;
    close(fd);
    timespec now{};
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return 5;
    return 0;
}
