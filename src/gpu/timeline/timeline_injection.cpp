// libkp_timeline.so: a CUDA injection library. Any CUDA program started with
//   CUDA_INJECTION64_PATH=/path/to/libkp_timeline.so KP_TIMELINE_OUT=trace.json ./program
// gets the CUPTI Activity API switched on when the driver initialises (cuInit calls
// InitializeInjection), and writes every kernel, memcpy, memset, runtime API call and
// synchronization record to $KP_TIMELINE_OUT as JSON when the program exits normally, or when
// the program calls kp_timeline_flush() (kernelpro-worker does: it leaves with _exit, which skips
// atexit handlers).
// The format is parsed by kp::gpu::parse_timeline_json (src/gpu/timeline.h); the records become
// JSON in src/gpu/activity (which leaves out runtime calls that only poll).
#include <cupti.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "gpu/activity/activity_records.h"

namespace {

using nlohmann::json;
using kp::gpu::activity::cupti_error_text;

constexpr std::size_t kBufferBytes = 8u << 20;  // CUPTI fills these; fewer, larger buffers drop less
constexpr std::size_t kBufferAlignment = 8;

// Collected records. Leaked on purpose: it must outlive static destructors, which may run before
// the atexit handler that writes the file.
struct Collector {
    kp::gpu::activity::TraceRecords records;
    bool written = false;
};

Collector& collector() {
    static Collector* instance = new Collector;
    return *instance;
}

void note_error(const std::string& message) {
    std::lock_guard<std::mutex> lock(collector().records.mutex);
    collector().records.errors.push_back(message);
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kBufferAlignment, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t,
                               std::size_t valid_size) {
    kp::gpu::activity::add_buffer(collector().records, context, stream_id, buffer, valid_size);
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
    static std::mutex once;
    std::lock_guard<std::mutex> lock(once);
    if (c.written) return;
    c.written = true;
    json document = kp::gpu::activity::trace_document(c.records);
    document["pid"] = ::getpid();
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
        std::lock_guard<std::mutex> lock(collector().records.mutex);
        collector().records.enabled_kinds.push_back(name);
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

