// CUPTI activity records as the JSON of a kernelpro.timeline.v1 trace (kp::gpu::parse_timeline_json
// reads it back): kernels with their launch configuration, memcpys, memsets, runtime API calls and
// synchronizations. Shared by the two CUPTI libraries that trace: libkp_timeline.so (injected at
// cuInit) and libkp_counters.so (a few calls traced inside the worker's counters run).
//
// Runtime calls that only poll (cudaEventQuery, cudaStreamQuery, cudaGetLastError, ...) are not
// kept: the worker waits for a call by polling cudaEventQuery, so a call of a 100 ms kernel made
// ~10^6 such records, each turned into JSON, written, read back and parsed (10 s of a 12.6 s
// profile). The launches, copies and synchronizations the timeline's summary reads stay.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace kp::gpu::activity {

struct TraceRecords {
    std::mutex mutex;
    nlohmann::json kernels = nlohmann::json::array();
    nlohmann::json memcpys = nlohmann::json::array();
    nlohmann::json memsets = nlohmann::json::array();
    nlohmann::json runtime_api = nlohmann::json::array();
    nlohmann::json synchronizations = nlohmann::json::array();
    nlohmann::json enabled_kinds = nlohmann::json::array();
    nlohmann::json errors = nlohmann::json::array();
    std::uint64_t dropped_records = 0;
    std::uint64_t polls_skipped = 0;
    // The correlation ids of the skipped polls: the synchronization records a cudaEventQuery
    // leaves behind are dropped with it (a 118 ms call waited on by polling left 119k of them).
    std::unordered_set<std::uint32_t> poll_correlations;
};

std::string cupti_error_text(CUptiResult result);

// Whether a runtime API call only asks for state (a poll): such calls are left out of the trace.
bool is_poll(CUpti_CallbackId runtime_callback);

// Adds one record (kinds the trace does not keep are ignored). Thread-safe.
void add_record(TraceRecords& records, const CUpti_Activity* activity);

// Every record of a completed buffer, and the records CUPTI dropped for it.
void add_buffer(TraceRecords& records, CUcontext context, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t valid_size);

// The trace document (schema kernelpro.timeline.v1). Takes the records' lock.
nlohmann::json trace_document(TraceRecords& records);

}  // namespace kp::gpu::activity
