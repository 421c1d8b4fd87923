#include "eval/worker/counter_collection.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <optional>

#include <cuda_runtime.h>

#include "common/stopwatch.h"
#include "gpu/counters/kp_counters.h"
#include "gpu/dynamic_library.h"

namespace kp::worker {

namespace {

// What the library's C callbacks reach; an exception thrown by the call (a candidate failure) is
// parked here and rethrown once the library has returned, never thrown through its frames.
struct PassContext {
    GpuSession& gpu;
    const std::function<void(const std::string&)>& call;
    std::exception_ptr failure;
};

int prepare_pass(void* user) {
    auto* p = static_cast<PassContext*>(user);
    try {
        p->gpu.flush_l2();
        p->gpu.wait_all("counters (flush)");
        return 0;
    } catch (...) {
        p->failure = std::current_exception();
        return 1;
    }
}

int call_pass(void* user) {
    auto* p = static_cast<PassContext*>(user);
    try {
        p->call("counters pass");
        return 0;
    } catch (...) {
        p->failure = std::current_exception();
        return 1;
    }
}

// The call's timeline from the same library, after the counters (outside every replay pass): a
// failure is the reply's "timeline_error", and the profile falls back to a separate traced run.
void add_call_trace(int calls, const gpu::DynamicLibrary& library, PassContext& context, nlohmann::json& reply) {
    decltype(&kp_counters_trace) trace = nullptr;
    decltype(&kp_counters_free) release = nullptr;
    if (!library.bind(trace, "kp_counters_trace") || !library.bind(release, "kp_counters_free")) {
        reply["timeline_error"] = "this counters library cannot trace (no kp_counters_trace)";
        return;
    }
    nlohmann::json ask = {{"calls", calls}};
    char* text = trace(ask.dump().c_str(), prepare_pass, call_pass, &context);
    if (context.failure) {
        release(text);
        std::rethrow_exception(context.failure);
    }
    nlohmann::json timeline = nlohmann::json::parse(text ? text : "null", nullptr, false);
    release(text);
    if (!timeline.is_object()) reply["timeline_error"] = "the counters library answered no trace";
    else if (timeline.contains("error")) reply["timeline_error"] = timeline["error"];
    else reply["timeline"] = std::move(timeline);
}

// Each SM takes one sample every 2^period cycles. A fixed period floods the buffers on a long call
// (2^9 on a 118 ms call: about 60M samples) and starves a short one, so aim at about 2^18 samples
// over one call of `call_seconds` (at about 2 GHz), within CUPTI's range 2^5 to 2^31.
int sampling_period_for(double call_seconds) {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        sms <= 0)
        sms = 132;
    const double cycles = std::max(call_seconds, 1e-6) * 2e9 * sms;
    return std::clamp(static_cast<int>(std::ceil(std::log2(cycles / 262144.0))), 5, 31);
}

// The sampled call took about 0.31-0.34 s whatever its kernels' length (the H200 recordings of
// 2026-12-02): most of it is CUPTI's 512 MB default hardware buffer, not its worker threads' 100 ms
// sleep. Measured on an H100 on 2026-12-07 (bench/pc_sampling_cost.py, 4 corpus kernels): with
// 1 ms and 512 MB the call still took 0.31-0.34 s, with 1 ms and 64 MB 0.09-0.15 s, no sample
// dropped. KP_PC_SAMPLING_SLEEP_MS and KP_PC_SAMPLING_BUFFER_MB override, for measuring.
constexpr long kWorkerSleepMs = 1;
constexpr long kHardwareBufferMb = 64;

void pc_sampling_settings(nlohmann::json& ask) {
    auto number = [](const char* name) -> std::optional<long> {
        const char* text = std::getenv(name);
        if (!text || !*text) return std::nullopt;
        char* end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (*end != '\0' || value <= 0) return std::nullopt;
        return value;
    };
    ask["worker_sleep_ms"] = number("KP_PC_SAMPLING_SLEEP_MS").value_or(kWorkerSleepMs);
    ask["hardware_buffer_bytes"] = static_cast<size_t>(number("KP_PC_SAMPLING_BUFFER_MB").value_or(kHardwareBufferMb)) << 20;
}

// Stall reasons per PC of one more call, from the same library: a failure is "pc_sampling_error"
// (the findings then have no line evidence).
void add_pc_sampling(const gpu::DynamicLibrary& library, PassContext& context, double call_seconds, nlohmann::json& reply) {
    decltype(&kp_counters_sample_pcs) sample = nullptr;
    decltype(&kp_counters_free) release = nullptr;
    if (!library.bind(sample, "kp_counters_sample_pcs") || !library.bind(release, "kp_counters_free")) {
        reply["pc_sampling_error"] = "this counters library cannot sample PCs (no kp_counters_sample_pcs)";
        return;
    }
    nlohmann::json ask = {{"sampling_period", sampling_period_for(call_seconds)}};
    pc_sampling_settings(ask);
    char* text = sample(ask.dump().c_str(), prepare_pass, call_pass, &context);
    if (context.failure) {
        release(text);
        std::rethrow_exception(context.failure);
    }
    nlohmann::json samples = nlohmann::json::parse(text ? text : "null", nullptr, false);
    release(text);
    if (!samples.is_object()) reply["pc_sampling_error"] = "the counters library answered no samples";
    else if (samples.contains("error")) reply["pc_sampling_error"] = samples["error"];
    else reply["pc_sampling"] = std::move(samples);
}

}  // namespace

void enable_pc_sampling_early(const gpu::DynamicLibrary& library) {
    decltype(&kp_counters_enable_pc_sampling) enable = nullptr;
    decltype(&kp_counters_free) release = nullptr;
    if (!library.bind(enable, "kp_counters_enable_pc_sampling") || !library.bind(release, "kp_counters_free")) return;
    release(enable("{}"));
}

CountingAsk first_ask(const WorkerRequest& request) {
    return {request.counter_metrics, request.max_kernels, request.trace_calls, request.pc_sampling, 0};
}

std::optional<CountingAsk> read_follow_up(int fd, const WorkerRequest& request, double wait_seconds) {
    // Byte by byte up to the newline: nothing after it may be taken from the pipe (the next
    // follow-up is written only after this collection's answer).
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_seconds);
    while (line.size() < (size_t{1} << 20)) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0) return std::nullopt;
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
        if (ready < 0 && errno != EINTR) return std::nullopt;
        if (ready <= 0) continue;
        char c = 0;
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;
        if (c == '\n') break;
        line += c;
    }
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    CountingAsk defaults;
    defaults.max_kernels = request.max_kernels;
    return counting_ask_from_json(j, defaults);
}

nlohmann::json collect_counters(const CountingAsk& ask, const std::string& counters_library, GpuSession& gpu,
                                const std::function<void(const std::string& phase)>& call) {
    if (counters_library.empty()) return {{"error", "no counters library named in the request"}, {"stage", "load"}};
    // The library stays loaded: CUPTI keeps callbacks into it until the process ends (by _exit).
    auto library = gpu::DynamicLibrary::open({counters_library}, gpu::DynamicLibrary::Lifetime::process);
    if (!library) return {{"error", "cannot open the counters library: " + library.error().message}, {"stage", "load"}};
    decltype(&kp_counters_collect) collect = nullptr;
    decltype(&kp_counters_free) release = nullptr;
    if (!library->bind(collect, "kp_counters_collect") || !library->bind(release, "kp_counters_free")) return {{"error", counters_library + " is not a kernelpro counters library"}, {"stage", "load"}};
    PassContext context{gpu, call, nullptr};
    auto started = std::chrono::steady_clock::now();
    nlohmann::json reply = {{"ranges", nlohmann::json::array()}, {"passes", 0}, {"seconds", nlohmann::json::object()}};
    double collect_seconds = 0;
    if (!ask.counter_metrics.empty()) {  // a follow-up may only sample or trace
        nlohmann::json request = {{"metrics", ask.counter_metrics}, {"max_ranges", ask.max_kernels}};
        char* text = collect(request.dump().c_str(), prepare_pass, call_pass, &context);
        collect_seconds = seconds_since(started);
        if (context.failure) {
            release(text);
            std::rethrow_exception(context.failure);
        }
        reply = nlohmann::json::parse(text ? text : "null", nullptr, false);
        release(text);
        if (reply.is_discarded() || !reply.is_object()) return {{"error", "the counters library answered no JSON"}, {"stage", "reply"}};
        if (reply.contains("error")) return reply;
    }
    // The library timed its set-up, passes and decoding ("seconds"); the sampled call and the trace
    // are timed here (the profile's cost line shows where the worker's time went). PC sampling comes
    // first: while sampling is enabled CUPTI refuses the activity kinds (CUPTI_ERROR_NOT_COMPATIBLE
    // on the H200), and the sampled call disables it when done.
    if (ask.pc_sampling) {
        // The call's kernel time, from the counters (a pass's wall time is mostly the flush and
        // CUPTI's own work: 36 ms a pass for a 30 us kernel), else what the orchestrator knows of it.
        double per_call = 0;
        for (const auto& range : reply.value("ranges", nlohmann::json::array()))
            per_call += range.value("metrics", nlohmann::json::object()).value("gpu__time_duration.sum", 0.0) * 1e-9;
        if (per_call <= 0) per_call = ask.call_seconds;
        if (per_call <= 0 && collect_seconds > 0) per_call = collect_seconds / std::max(1, reply.value("passes", 1));
        if (per_call <= 0) per_call = 1e-3;
        started = std::chrono::steady_clock::now();
        add_pc_sampling(*library, context, per_call, reply);
        reply["seconds"]["pc_sampling"] = seconds_since(started);
    }
    if (ask.trace_calls > 0) {
        started = std::chrono::steady_clock::now();
        add_call_trace(ask.trace_calls, *library, context, reply);
        reply["seconds"]["trace"] = seconds_since(started);
    }
    return reply;
}

}  // namespace kp::worker
