#include "gpu/activity/activity_records.h"

#include <cxxabi.h>

#include <cstdlib>

namespace kp::gpu::activity {

using nlohmann::json;

namespace {

std::string demangle(const char* name) {
    if (!name) return {};
    int status = 0;
    char* readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string result = (status == 0 && readable) ? readable : name;
    std::free(readable);
    return result;
}

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the version suffix is noise for readers.
std::string runtime_api_name(CUpti_CallbackId id) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, id, &name) != CUPTI_SUCCESS || !name)
        return "runtime_api_" + std::to_string(id);
    std::string text = name;
    auto suffix = text.rfind("_v");
    if (suffix != std::string::npos && suffix + 2 < text.size() &&
        text.find_first_not_of("0123456789", suffix + 2) == std::string::npos)
        text.resize(suffix);
    return text;
}

const char* memcpy_kind_name(std::uint8_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
        case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
        default: return "unknown";
    }
}

const char* synchronization_type_name(CUpti_ActivitySynchronizationType type) {
    switch (type) {
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event_synchronize";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream_wait_event";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream_synchronize";
        case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context_synchronize";
        default: return "unknown";
    }
}

json kernel_json(const CUpti_ActivityKernel10& k) {
    return {{"name", k.name ? k.name : ""},
            {"demangled_name", demangle(k.name)},
            {"start_ns", k.start},
            {"end_ns", k.end},
            {"queued_ns", k.queued},
            {"submitted_ns", k.submitted},
            {"device", k.deviceId},
            {"context", k.contextId},
            {"stream", k.streamId},
            {"correlation_id", k.correlationId},
            {"grid", {k.gridX, k.gridY, k.gridZ}},
            {"block", {k.blockX, k.blockY, k.blockZ}},
            {"cluster", {k.clusterX, k.clusterY, k.clusterZ}},
            {"registers_per_thread", k.registersPerThread},
            {"static_shared_bytes", k.staticSharedMemory},
            {"dynamic_shared_bytes", k.dynamicSharedMemory},
            {"local_bytes_per_thread", k.localMemoryPerThread},
            {"graph_node_id", k.graphNodeId}};
}

}  // namespace

std::string cupti_error_text(CUptiResult result) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    return text ? text : ("CUPTI error " + std::to_string(static_cast<int>(result)));
}

bool is_poll(CUpti_CallbackId id) {
    switch (id) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020:
        case CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020:
            return true;
        default:
            return false;
    }
}

void add_record(TraceRecords& c, const CUpti_Activity* activity) {
    switch (activity->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            json entry = kernel_json(*reinterpret_cast<const CUpti_ActivityKernel10*>(activity));
            std::lock_guard<std::mutex> lock(c.mutex);
            c.kernels.push_back(std::move(entry));
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity);
            json entry = {{"kind", memcpy_kind_name(m->copyKind)}, {"bytes", m->bytes},
                          {"start_ns", m->start}, {"end_ns", m->end}, {"device", m->deviceId},
                          {"context", m->contextId}, {"stream", m->streamId},
                          {"correlation_id", m->correlationId}};
            std::lock_guard<std::mutex> lock(c.mutex);
            c.memcpys.push_back(std::move(entry));
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(activity);
            json entry = {{"bytes", m->bytes}, {"value", m->value}, {"start_ns", m->start},
                          {"end_ns", m->end}, {"device", m->deviceId}, {"context", m->contextId},
                          {"stream", m->streamId}, {"correlation_id", m->correlationId}};
            std::lock_guard<std::mutex> lock(c.mutex);
            c.memsets.push_back(std::move(entry));
            break;
        }
        case CUPTI_ACTIVITY_KIND_RUNTIME: {
            auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(activity);
            if (is_poll(a->cbid)) {
                std::lock_guard<std::mutex> lock(c.mutex);
                c.polls_skipped++;
                c.poll_correlations.insert(a->correlationId);
                break;
            }
            json entry = {{"name", runtime_api_name(a->cbid)}, {"callback_id", a->cbid},
                          {"start_ns", a->start}, {"end_ns", a->end},
                          {"correlation_id", a->correlationId}, {"thread_id", a->threadId},
                          {"return_value", a->returnValue}};
            std::lock_guard<std::mutex> lock(c.mutex);
            c.runtime_api.push_back(std::move(entry));
            break;
        }
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
            auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(activity);
            json entry = {{"type", synchronization_type_name(s->type)}, {"start_ns", s->start},
                          {"end_ns", s->end}, {"context", s->contextId}, {"stream", s->streamId},
                          {"correlation_id", s->correlationId}};
            std::lock_guard<std::mutex> lock(c.mutex);
            c.synchronizations.push_back(std::move(entry));
            break;
        }
        default:
            break;
    }
}

void add_buffer(TraceRecords& records, CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t valid_size) {
    CUpti_Activity* activity = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &activity) == CUPTI_SUCCESS) add_record(records, activity);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped) {
        std::lock_guard<std::mutex> lock(records.mutex);
        records.dropped_records += dropped;
    }
}

json trace_document(TraceRecords& c) {
    std::lock_guard<std::mutex> lock(c.mutex);
    json synchronizations = json::array();
    for (const auto& entry : c.synchronizations)
        if (!c.poll_correlations.contains(entry.value("correlation_id", std::uint32_t{0}))) synchronizations.push_back(entry);
    std::uint32_t cupti_version = 0;
    cuptiGetVersion(&cupti_version);
    return {{"schema", "kernelpro.timeline.v1"},
            {"cupti_api_version", cupti_version},
            {"enabled_kinds", c.enabled_kinds},
            {"errors", c.errors},
            {"dropped_records", c.dropped_records},
            {"polls_skipped", c.polls_skipped},
            {"kernels", c.kernels},
            {"memcpys", c.memcpys},
            {"memsets", c.memsets},
            {"runtime_api", c.runtime_api},
            {"synchronizations", synchronizations}};
}

}  // namespace kp::gpu::activity
