// Runs a CUDA program under kernelpro's CUPTI injection library (libkp_timeline.so, through
// CUDA_INJECTION64_PATH) and returns its activity timeline: every kernel with its launch
// configuration, memcpy, memset, runtime API call and synchronization. The system-level view ncu
// lacks (launch gaps, host synchronization), since nsys cannot be relied on. The program must
// either exit normally or call the library's kp_timeline_flush (kernelpro-worker does).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "gpu/timeline.h"
#include "profile/collector.h"

namespace kp::profile {

struct TimelineRequest {
    std::vector<std::string> program_argv;
    std::map<std::string, std::string> environment;  // extra environment for the program
    std::string cache_key;        // names the binary, its inputs and the GPU; empty = no caching
    bool refresh_cache = false;   // collect again and overwrite what the cache holds
    std::chrono::seconds timeout{120};
    double program_seconds = 1.0; // the program's own run time, for the cost estimate
};

struct TimelineResult {
    gpu::Timeline timeline;
    std::string command;          // the command line that ran, for the record
    bool from_cache = false;
};

class TimelineCollector {
public:
    explicit TimelineCollector(std::filesystem::path injection_library, std::optional<CollectorCache> cache = std::nullopt);

    static constexpr const char* name() { return "timeline"; }

    // No replay: the program runs once more, plus ~0.1 s of tracing (0.24-0.26 s in all, measured
    // on the H200 for the worker's 5-call profile run).
    CollectorCost cost(const TimelineRequest& request) const;

    Result<TimelineResult> collect(const TimelineRequest& request) const;

private:
    std::filesystem::path library_;
    std::optional<CollectorCache> cache_;
};

}  // namespace kp::profile
