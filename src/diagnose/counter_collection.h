// The profile's hardware counters: who counts them, and what that cost. By default the worker
// counts itself through CUPTI's range profiler (no ncu start-up); ncu counts for the source page,
// with --counters ncu, and after the worker failed once (a note says why). Every collection is
// charged to the report: runs, replay passes (estimated and counted), wall time, cache hits and
// the commands that ran.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "diagnose/profile_options.h"
#include "diagnose/profile_report.h"
#include "eval/protocol.h"
#include "gpu/occupancy.h"
#include "gpu/timeline.h"
#include "profile/collector.h"
#include "profile/cupti_counter_collector.h"
#include "profile/kernel_metrics.h"
#include "profile/pc_samples.h"
#include "profile/ncu_collector.h"

namespace kp::diagnose {

// The worker reading `request`, its channel discarded: what ncu and the timeline run.
std::vector<std::string> worker_argv(const std::filesystem::path& worker, const std::filesystem::path& request);

// The call whose counters are collected.
struct CounterTarget {
    std::filesystem::path worker;        // kernelpro-worker
    WorkerRequest request;               // its profile_run request (task, library, inputs)
    std::filesystem::path request_file;  // the same request, written: ncu starts the worker with it
    std::string cache_key;               // the build, task, GPU and ncu (profile_cache_key)
    bool refresh_cache = false;          // collect again, replacing what the cache holds
    gpu::OccupancyLimits limits;         // this GPU's, for the per-resource occupancy limits
    int trace_calls = 0;                 // calls the first collection in the worker also traces
    bool pc_sampling = false;            // the first collection in the worker also samples PCs of one call
    // The first collection in the worker leaves the trace and the PC samples to a follow-up
    // (collect_follow_up), which takes them when asked (PC sampling is switched on early for it).
    bool call_data_later = false;
};

// What a follow-up collection takes besides counters.
struct FollowUp {
    bool sample_pcs = false;
    int trace_calls = 0;
    double call_seconds = 0;  // one call's kernel time, from the first collection (the sampling period)
};

class CounterCollection {
public:
    // Fails only when the worker must count (--counters cupti) and libkp_counters.so is missing.
    static Result<CounterCollection> open(const ProfileOptions& options, CounterTarget target, profile::CollectorCache cache,
                                          std::filesystem::path scratch, ProfileReport& report);

    // Whether the next collection (with or without the source page) runs in the worker.
    bool in_worker(bool source_page) const { return cupti_usable_ && !source_page; }

    // `metrics` for every kernel of one call (and ncu's source page when asked). A cache hit is
    // listed in the report as who counted ("counters" for the worker, "ncu") plus `stage`. With
    // `more_follow`, a worker that counted stays for collect_follow_up.
    Result<profile::NcuResult> collect(const std::vector<std::string>& metrics, bool source_page, const std::string& stage = "",
                                       bool more_follow = false);
    // The next collection of the same call in the worker that stayed (a fresh one when none did:
    // the first collection came from the cache or ncu): `metrics` (may be none) and `extra`. Ends it.
    Result<profile::NcuResult> collect_follow_up(const std::vector<std::string>& metrics, const FollowUp& extra, const std::string& stage);
    // Ends a worker that stayed for a follow-up that will not come; what its ending revealed is a note.
    void close();
    // The first collection in the worker switches PC sampling on early but leaves the trace and the
    // samples to collect_follow_up (target.call_data_later).
    void leave_call_data_to_follow_up() { target_.call_data_later = true; }

    // The call's timeline the worker traced with its first collection (target.trace_calls), once;
    // with the number of calls it holds.
    std::optional<std::pair<gpu::Timeline, int>> take_call_timeline() { return std::exchange(call_timeline_, std::nullopt); }
    // The PC samples of the first collection (target.pc_sampling), once.
    std::optional<profile::PcSampling> take_pc_sampling() { return std::exchange(pc_sampling_, std::nullopt); }

private:
    CounterCollection(const ProfileOptions& options, CounterTarget target, profile::CollectorCache cache,
                      std::filesystem::path scratch, ProfileReport& report);
    Result<profile::NcuResult> collect_in_worker(const std::vector<std::string>& metrics, const std::string& label, bool keep_open,
                                                 const std::optional<FollowUp>& follow_up);
    Result<profile::NcuResult> collect_with_ncu(const std::vector<std::string>& metrics, bool source_page, const std::string& label);
    Status ensure_ncu();
    void record_ncu_commands(const std::vector<std::string>& commands);

    const ProfileOptions* options_;
    CounterTarget target_;
    profile::CollectorCache cache_;
    std::filesystem::path scratch_;
    ProfileReport* report_;
    std::optional<std::filesystem::path> counters_library_;
    bool cupti_usable_ = false;
    profile::CuptiCounterCollector cupti_;  // keeps a worker between a collection and its follow-up
    std::optional<std::pair<gpu::Timeline, int>> call_timeline_;
    std::optional<profile::PcSampling> pc_sampling_;
    std::optional<profile::NcuCollector> ncu_;
    std::pair<std::string, std::string> ncu_display_;  // wrapper path -> what it runs, for the record
};

}  // namespace kp::diagnose
