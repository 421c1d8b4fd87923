// kernelpro-worker: owns the CUDA context and loads kernel libraries, so that whatever a candidate
// does (illegal address, hang, abort, exhausting memory) ends this process and not the
// orchestrator. Reads one request (a JSON line) on stdin and answers with JSON lines on the channel file
// descriptor given by --channel-fd; see docs/worker-protocol.md. Candidate code runs sandboxed
// (src/sandbox): this process becomes the supervisor and the work happens in a confined child.
//
// The same code is also libkernelpro_worker.so, whose kp_worker_main a Python interpreter calls
// (python/kernelpro_torch/worker_host.py) when the task's reference is a PyTorch module: the worker
// then runs inside a real Python process, where the PyTorch bridge libraries find the interpreter.
#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>

#include "eval/protocol.h"
#include "eval/worker/candidate_gate.h"
#include "eval/worker/channel.h"
#include "eval/worker/evaluation.h"
#include "eval/worker/gpu_session.h"
#include "eval/worker/sandbox_check.h"
#include "eval/worker/worker_failure.h"
#include "gpu/dynamic_library.h"
#include "sandbox/confinement.h"

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

// Descriptors inherited from the orchestrator beyond stdio and the channel (a run store, a log)
// would stay open to candidate code whatever Landlock says: close them.
void close_inherited_descriptors(int keep) {
    DIR* dir = ::opendir("/proc/self/fd");
    if (!dir) return;
    std::vector<int> stray;
    while (dirent* entry = ::readdir(dir)) {
        int fd = std::atoi(entry->d_name);
        if (fd > 2 && fd != keep && fd != ::dirfd(dir) && entry->d_name[0] != '.') stray.push_back(fd);
    }
    ::closedir(dir);
    for (int fd : stray) ::close(fd);
}

std::optional<WorkerRequest> read_request(const Channel& channel) {
    try {
        // One line (or everything up to the end of stdin): with follow-ups the orchestrator keeps
        // stdin open and writes the next line only after the worker's answer to this one.
        std::string text;
        std::getline(std::cin, text);
        auto j = nlohmann::json::parse(text);
        if (j.value("protocol", "") != kWorkerProtocol) {
            Channel(channel.fd(), j.value("nonce", "")).send(
                {{"type", "failure"}, {"class", "crash"}, {"phase", "protocol"},
                 {"message", "protocol mismatch: worker speaks " + std::string(kWorkerProtocol) + ", request says " + j.value("protocol", "?")}});
            return std::nullopt;
        }
        return worker_request_from_json(j);
    } catch (const std::exception& e) {
        channel.send({{"type", "failure"}, {"class", "crash"}, {"phase", "protocol"}, {"message", std::string("bad request: ") + e.what()}});
        return std::nullopt;
    }
}

nlohmann::json run_mode(const WorkerRequest& request, CandidateGate& gate, const Channel& channel) {
    // `hello` says the worker is ready and candidate code comes next (before it, any failure is
    // the machine's); the sandbox check uses no GPU.
    if (request.mode == "sandbox_check") {
        channel.send({{"type", "hello"}, {"protocol", kWorkerProtocol}, {"device", nlohmann::json::object()}});
        return run_sandbox_check(request, gate, channel);
    }
    std::optional<GpuSession> gpu;
    try {
        gpu.emplace(request.call_timeout_seconds);
    } catch (const std::exception& e) {
        // Perhaps CUDA cannot start inside the namespaces: a fresh child without them tries again.
        gate.confinement().retry_without_namespaces(std::string("CUDA did not start inside them: ") + e.what());
        throw;
    }
    channel.send({{"type", "hello"}, {"protocol", kWorkerProtocol}, {"device", gpu->device_json()}});
    if (request.mode == "device_check") return {{"type", "result"}};  // a GPU pool's health check: the context came up
    if (request.mode == "profile_run") return run_profile(request, *gpu, channel, gate);
    if (request.mode == "profile_counters") return run_counters(request, *gpu, channel, gate);
    return run_evaluation(request, *gpu, channel, gate);
}

// The work of one request, inside the confinement.
int serve(const WorkerRequest& request, const Channel& channel, sandbox::Confinement& confinement) {
    CandidateGate gate(request, confinement, channel);
    try {
        gate.check_preflight();
        nlohmann::json result = run_mode(request, gate, channel);
        std::fflush(stdout);
        channel.send(result);
    } catch (const SandboxRefusal& refusal) {
        channel.send({{"type", "refused"}, {"message", refusal.what()}});
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
}  // namespace

extern "C" __attribute__((visibility("default"))) int kp_worker_main(int argc, char** argv) {
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

    auto request = read_request(Channel(channel_fd, ""));
    if (!request) return 2;
    const bool profiler_attached = request->mode == "profile_run";
    if (!profiler_attached) close_inherited_descriptors(channel_fd);  // a profiler may have passed some
    Channel channel(channel_fd, request->nonce);
    sandbox::ConfinementOptions confinement{request->sandbox, profiler_attached, channel_fd, request->nonce};
    return sandbox::run_confined(confinement, [&](sandbox::Confinement& c) { return serve(*request, channel, c); });
}
