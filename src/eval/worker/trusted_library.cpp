#include "eval/worker/trusted_library.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "eval/worker/worker_failure.h"

namespace kp::worker {

KernelLibrary load_trusted_library(const std::string& path, const std::string& role, const std::string& task_json,
                                   const Channel& channel) {
    KernelLibrary library = KernelLibrary::load(path, role, true);
    if (!library.configurable()) return library;
    std::atomic<bool> done{false};
    std::thread heartbeat([&] {
        auto last = std::chrono::steady_clock::now();
        while (!done.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            if (std::chrono::steady_clock::now() - last > std::chrono::seconds(5) && !done.load()) {
                last = std::chrono::steady_clock::now();
                channel.progress("reference", {{"detail", role + ": starting"}});
            }
        }
    });
    int rc = library.configure(task_json);
    done.store(true);
    heartbeat.join();
    if (rc != 0) throw WorkerFailure(FailureClass::Crash, role + " could not start: " + library.error_text(), "reference");
    return library;
}

}  // namespace kp::worker
