// libkp_counters.so's call trace (kp_counters_trace, see kp_counters.h): CUPTI's activity API
// switched on around a few calls of the worker's counters run, so the call's timeline (kernels in
// time, launch gaps and latency, copies, synchronizations) costs those calls and no second worker.
// The separate traced run (libkp_timeline.so at cuInit) recorded the worker's whole life, input
// generation and every poll of its wait loop included: 10.4 s of a 12.6 s profile on a call of a
// long atomic kernel. Here only the traced calls are recorded, and polls are left out.
#include "gpu/counters/kp_counters.h"

#include <cupti.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "gpu/activity/activity_records.h"
#include "gpu/counters/c_reply.h"

namespace {

using nlohmann::json;
using kp::gpu::activity::cupti_error_text;

constexpr std::size_t kBufferBytes = 4u << 20;
constexpr std::size_t kBufferAlignment = 8;

// Where the buffers' records go; one trace at a time (the worker asks once).
kp::gpu::activity::TraceRecords* g_records = nullptr;
std::mutex g_trace_mutex;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t, std::size_t valid_size) {
    if (g_records) kp::gpu::activity::add_buffer(*g_records, context, stream_id, buffer, valid_size);
    std::free(buffer);
}

struct TraceError {
    std::string message;
};

void check(CUptiResult result, const char* what) {
    if (result != CUPTI_SUCCESS) throw TraceError{std::string(what) + ": " + cupti_error_text(result)};
}

constexpr struct {
    CUpti_ActivityKind kind;
    const char* name;
    bool required;
} kKinds[] = {{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "concurrent_kernel", true},
              {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy", true},
              {CUPTI_ACTIVITY_KIND_MEMSET, "memset", true},
              {CUPTI_ACTIVITY_KIND_RUNTIME, "runtime", true},
              {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronization", false}};

// Switches the kinds off on every return, so the range profiler that may follow sees no tracing.
struct EnabledKinds {
    kp::gpu::activity::TraceRecords& records;
    ~EnabledKinds() {
        for (const auto& k : kKinds) cuptiActivityDisable(k.kind);
    }
    void enable() {
        for (const auto& k : kKinds) {
            CUptiResult r = cuptiActivityEnable(k.kind);
            if (r == CUPTI_SUCCESS) records.enabled_kinds.push_back(k.name);
            else if (k.required) throw TraceError{std::string("cuptiActivityEnable(") + k.name + "): " + cupti_error_text(r)};
            else records.errors.push_back(std::string("cuptiActivityEnable(") + k.name + "): " + cupti_error_text(r));
        }
    }
};

json trace(const json& request, kp_counters_step prepare, kp_counters_step call, void* user) {
    const int calls = std::max(1, request.value("calls", 1));
    static std::once_flag registered;
    CUptiResult registration = CUPTI_SUCCESS;
    std::call_once(registered, [&] { registration = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed); });
    check(registration, "cuptiActivityRegisterCallbacks");
    kp::gpu::activity::TraceRecords records;
    {
        std::lock_guard<std::mutex> lock(g_trace_mutex);
        g_records = &records;
        EnabledKinds kinds{records};
        kinds.enable();
        for (int i = 0; i < calls; ++i) {
            if (prepare(user) != 0) throw TraceError{"preparing traced call " + std::to_string(i) + " failed"};
            if (call(user) != 0) throw TraceError{"traced call " + std::to_string(i) + " failed"};
        }
        check(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
        g_records = nullptr;
    }
    json document = kp::gpu::activity::trace_document(records);
    document["calls"] = calls;
    return document;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) char* kp_counters_trace(const char* request_json, kp_counters_step prepare,
                                                                          kp_counters_step call, void* user) {
    try {
        return kp::gpu::counters::to_c_string(trace(json::parse(request_json ? request_json : "{}"), prepare, call, user));
    } catch (const TraceError& e) {
        g_records = nullptr;
        return kp::gpu::counters::to_c_string({{"error", e.message}});
    } catch (const std::exception& e) {
        g_records = nullptr;
        return kp::gpu::counters::to_c_string({{"error", e.what()}});
    }
}
