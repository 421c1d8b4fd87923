// kernelpro-worker: owns the CUDA context and loads kernel libraries, so that whatever a candidate
// does (illegal address, hang, abort, exhausting memory) ends this process and not the
// orchestrator. Reads one request (JSON) on stdin and answers with JSON lines on the channel file
// descriptor given by --channel-fd; see docs/worker-protocol.md.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <iterator>
#include <string>

#include "eval/protocol.h"
#include "eval/worker/channel.h"
#include "eval/worker/evaluation.h"
#include "eval/worker/gpu_session.h"
#include "eval/worker/worker_failure.h"
#include "gpu/dynamic_library.h"

using namespace kp;
using namespace kp::worker;

namespace {
// A tracing library injected through CUDA_INJECTION64_PATH (kernelpro's timeline collector) writes
// its trace from an atexit handler, which _exit skips: ask it to write now, if it offers to.
void flush_injected_tracer() {
    const char* injected = std::getenv("CUDA_INJECTION64_PATH");
    if (!injected || !*injected) return;
    auto library = gpu::DynamicLibrary::find_loaded(injected);
    if (!library) return;
    void (*flush)() = nullptr;
    if (library->bind(flush, "kp_timeline_flush")) flush();
}
}  // namespace

int main(int argc, char** argv) {
    int channel_fd = -1;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--channel-fd") == 0) channel_fd = std::atoi(argv[i + 1]);
    if (channel_fd < 0) {
        std::fprintf(stderr, "usage: kernelpro-worker --channel-fd N < request.json\n"
                             "(started by kernelpro; see docs/worker-protocol.md)\n");
        return 2;
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the orchestrator
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // a crashing candidate should not write core files

    Channel channel(channel_fd);
    WorkerRequest request;
    try {
        std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        auto j = nlohmann::json::parse(text);
        if (j.value("protocol", "") != kWorkerProtocol) {
            channel.send({{"type", "failure"}, {"class", "crash"}, {"phase", "protocol"},
                          {"message", "protocol mismatch: worker speaks " + std::string(kWorkerProtocol) + ", request says " +
                                          j.value("protocol", "?")}});
            return 2;
        }
        request = worker_request_from_json(j);
    } catch (const std::exception& e) {
        channel.send({{"type", "failure"}, {"class", "crash"}, {"phase", "protocol"}, {"message", std::string("bad request: ") + e.what()}});
        return 2;
    }

    try {
        GpuSession gpu(request.call_timeout_seconds);
        channel.send({{"type", "hello"}, {"protocol", kWorkerProtocol}, {"device", gpu.device_json()}});
        nlohmann::json result = request.mode == "profile_run"        ? run_profile(request, gpu, channel)
                                : request.mode == "profile_counters" ? run_counters(request, gpu, channel)
                                                                     : run_evaluation(request, gpu, channel);
        std::fflush(stdout);
        channel.send(result);
    } catch (const WorkerFailure& f) {
        std::fflush(stdout);
        channel.send({{"type", "failure"}, {"class", failure_class_name(f.failure_class)}, {"phase", f.phase}, {"message", f.what()}});
    } catch (const std::exception& e) {
        channel.send({{"type", "failure"}, {"class", "crash"}, {"phase", "worker"}, {"message", std::string("worker error: ") + e.what()}});
    }
    // Skip destructors and atexit handlers: candidate code may have registered some, and a hung
    // kernel must not keep the process alive.
    flush_injected_tracer();
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);
}
