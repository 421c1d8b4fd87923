// libkp_timeline.so: a CUDA injection library. Any CUDA program started with
//   CUDA_INJECTION64_PATH=/path/to/libkp_timeline.so KP_TIMELINE_OUT=trace.json ./program
// gets the CUPTI Activity API switched on when the driver initialises (cuInit calls
// InitializeInjection), and writes every kernel, memcpy, memset, runtime API call and
// synchronization record to $KP_TIMELINE_OUT as JSON when the program exits normally, or when
// the program calls kp_timeline_flush() (kernelpro-worker does: it leaves with _exit, which skips
// atexit handlers).
// The format is parsed by kp::gpu::parse_timeline_json (src/gpu/timeline.h).
#include <cupti.h>
#include <cxxabi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

constexpr std::size_t kBufferBytes = 8u << 20;  // CUPTI fills these; fewer, larger buffers drop less
constexpr std::size_t kBufferAlignment = 8;

// Collected records. Leaked on purpose: it must outlive static destructors, which may run before
// the atexit handler that writes the file.
struct Collector {
    std::mutex mutex;
    json kernels = json::array();
    json memcpys = json::array();
    json memsets = json::array();
    json runtime_api = json::array();
    json synchronizations = json::array();
    json enabled_kinds = json::array();
    json errors = json::array();
    std::uint64_t dropped_records = 0;
    bool written = false;
};

Collector& collector() {
    static Collector* instance = new Collector;
    return *instance;
}

void note_error(const std::string& message) {
    std::lock_guard<std::mutex> lock(collector().mutex);
    collector().errors.push_back(message);
}

std::string cupti_error_text(CUptiResult result) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    return text ? text : ("CUPTI error " + std::to_string(static_cast<int>(result)));
}

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

void record(const CUpti_Activity* activity) {
    Collector& c = collector();
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

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t,
                               std::size_t valid_size) {
    CUpti_Activity* activity = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_size, &activity) == CUPTI_SUCCESS) record(activity);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped) {
        std::lock_guard<std::mutex> lock(collector().mutex);
        collector().dropped_records += dropped;
    }
    std::free(buffer);
}

// $KP_TIMELINE_OUT, with "%p" replaced by the process id (for programs that start CUDA children).
std::string output_path() {
    const char* configured = std::getenv("KP_TIMELINE_OUT");
    std::string path = (configured && *configured) ? configured : "kp_timeline.%p.json";
    for (auto at = path.find("%p"); at != std::string::npos; at = path.find("%p"))
        path.replace(at, 2, std::to_string(::getpid()));
    return path;
}

void write_timeline() {
    // Forced flush also returns buffers that are only partly filled.
    CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (flushed != CUPTI_SUCCESS) note_error("cuptiActivityFlushAll: " + cupti_error_text(flushed));

    Collector& c = collector();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.written) return;
    c.written = true;
    std::uint32_t cupti_version = 0;
    cuptiGetVersion(&cupti_version);
    json document = {{"schema", "kernelpro.timeline.v1"},
                     {"pid", ::getpid()},
                     {"cupti_api_version", cupti_version},
                     {"enabled_kinds", c.enabled_kinds},
                     {"errors", c.errors},
                     {"dropped_records", c.dropped_records},
                     {"kernels", c.kernels},
                     {"memcpys", c.memcpys},
                     {"memsets", c.memsets},
                     {"runtime_api", c.runtime_api},
                     {"synchronizations", c.synchronizations}};
    std::string path = output_path();
    std::string temp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(temp, std::ios::trunc);
        out << document.dump() << '\n';
        if (!out) {
            std::fprintf(stderr, "kp_timeline: cannot write %s\n", temp.c_str());
            return;
        }
    }
    // Rename so a reader never sees half a file.
    if (std::rename(temp.c_str(), path.c_str()) != 0)
        std::fprintf(stderr, "kp_timeline: cannot rename %s to %s\n", temp.c_str(), path.c_str());
}

void enable(CUpti_ActivityKind kind, const char* name, bool required) {
    CUptiResult result = cuptiActivityEnable(kind);
    if (result == CUPTI_SUCCESS) {
        collector().enabled_kinds.push_back(name);
        return;
    }
    std::string message = std::string("cuptiActivityEnable(") + name + "): " + cupti_error_text(result);
    note_error(message);
    if (required) std::fprintf(stderr, "kp_timeline: %s\n", message.c_str());
}

int initialize() {
    CUptiResult result = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (result != CUPTI_SUCCESS) {
        std::fprintf(stderr, "kp_timeline: cuptiActivityRegisterCallbacks: %s\n", cupti_error_text(result).c_str());
        return 0;
    }
    // CONCURRENT_KERNEL (not KERNEL) so kernels are not serialised by tracing.
    enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "concurrent_kernel", true);
    enable(CUPTI_ACTIVITY_KIND_MEMCPY, "memcpy", true);
    enable(CUPTI_ACTIVITY_KIND_MEMSET, "memset", true);
    enable(CUPTI_ACTIVITY_KIND_RUNTIME, "runtime", true);
    enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronization", false);
    std::atexit(write_timeline);
    return 1;
}

}  // namespace

// Called by the CUDA driver during cuInit when this library is named in CUDA_INJECTION64_PATH.
// Returns 1 on success, as the driver expects.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    static std::once_flag once;
    static int status = 0;
    std::call_once(once, [] { status = initialize(); });
    return status;
}

// Writes the trace now (once; later calls and the atexit handler do nothing). For programs that
// end with _exit; they find it with dlopen(RTLD_NOLOAD) on $CUDA_INJECTION64_PATH.
extern "C" __attribute__((visibility("default"))) void kp_timeline_flush(void) { write_timeline(); }

