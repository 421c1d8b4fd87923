// "timeline": the call's CUPTI activity trace. By default the worker's counters run traces one call
// itself (after its replay passes, through libkp_counters.so: no second worker); without it (ncu
// counted, an older library, the trace failed) the worker runs again for `timeline_iterations`
// calls under libkp_timeline.so. Host gaps and launch overhead only exist between launches, so it
// is used when the counters saw two or more kernels in a call, when no counters were collected to
// say, or when it was asked for by name.
#include <cstdint>

#include "diagnose/collector.h"
#include "diagnose/session_steps.h"
#include "gpu/helper_paths.h"
#include "gpu/timeline.h"
#include "profile/timeline_collector.h"

namespace kp::diagnose {

namespace {

std::optional<gpu::Timeline> trace_the_call(ProfileSession& s) {
    auto library = gpu::find_helper("libkp_timeline.so");
    if (!library) {
        s.report.notes.push_back("timeline: libkp_timeline.so not found (set KERNELPRO_HELPER_DIR)");
        return std::nullopt;
    }
    auto request_file = write_profile_request(profile_request(s, s.options.timeline_iterations), s.scratch->path() / "request_timeline.json");
    if (!request_file) {
        s.report.notes.push_back("timeline: " + request_file.error().message);
        return std::nullopt;
    }
    profile::TimelineCollector collector(*library, s.cache);
    profile::TimelineRequest request;
    request.program_argv = worker_argv(s.worker, *request_file);
    request.environment = s.options.environment;
    request.cache_key = s.cache_key + "/iterations=" + std::to_string(s.options.timeline_iterations);
    request.refresh_cache = s.refresh;
    s.progress("timeline: CUPTI activity trace");
    auto collected = [&] {
        ChargeTime charge{s.report.collector_seconds["timeline"]};
        return collector.collect(request);
    }();
    if (!collected) {
        s.report.notes.push_back(collected.error().message);
        return std::nullopt;
    }
    if (collected->from_cache) s.report.cached.push_back("timeline");
    return std::move(collected->timeline);
}

// The candidate's kernels only (its own and library ones such as cuBLAS; the worker's kp_harness_*
// kernels fill inputs and flush L2), and the transfers inside their span. False when none is left.
bool keep_the_candidates_work(gpu::Timeline& t) {
    std::erase_if(t.kernels, [&](const gpu::TimelineKernel& k) { return k.name.find("kp_harness_") != std::string::npos; });
    if (t.kernels.empty()) return false;
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const auto& k : t.kernels) lo = std::min(lo, k.start_ns), hi = std::max(hi, k.end_ns);
    std::erase_if(t.memcpys, [&](const auto& m) { return m.start_ns < lo || m.end_ns > hi; });
    std::erase_if(t.memsets, [&](const auto& m) { return m.start_ns < lo || m.end_ns > hi; });
    std::erase_if(t.synchronizations, [&](const auto& m) { return m.start_ns < lo || m.end_ns > hi; });
    std::erase_if(t.runtime_api, [&](const auto& m) { return m.end_ns < lo || m.start_ns > hi; });
    return true;
}

class TimelineCollector final : public Collector {
public:
    std::string_view name() const override { return "timeline"; }
    std::string_view provides() const override {
        return "the call's kernels, copies and host synchronizations in time (launch gaps and overhead), for every kernel";
    }
    // At `call`, or after stage 2 (`reconcile`) when the first collection left the trace to it.
    std::vector<CollectorStage> stages() const override { return {CollectorStage::call, CollectorStage::reconcile}; }
    bool needs_gpu() const override { return true; }
    profile::CollectorCost declared_cost() const override { return profile::TimelineCollector({}).cost({}); }
    void configure(CollectionPlan& plan) const override { plan.trace_the_call = true; }

    Status collect(CollectorStage stage, ProfileSession& s) const override {
        if (!s.call_data_read_at(stage)) return {};
        if (s.call_data_later && !s.stage2_traces) {
            s.report.notes.push_back("timeline: not taken (no kernel's profiling-tree leaf takes a tool that reads it)");
            return {};
        }
        if (!s.gpu_ready && !s.call_timeline) return {};
        const bool asked = s.options.named_collectors.count(std::string(name())) > 0;
        if (!asked && s.plan.counters && s.kernels.size() < 2) {
            s.report.notes.push_back("timeline: skipped, one kernel launch per call (ask with --collectors ...,timeline)");
            return {};
        }
        // The counters run's trace holds its traced calls; a run of its own also the warm-up call.
        int calls = s.call_timeline_calls;
        std::optional<gpu::Timeline> traced = std::move(s.call_timeline);
        s.call_timeline.reset();
        std::string source = "counters run";
        if (!traced) {
            if (!s.gpu_ready) return {};
            traced = trace_the_call(s);
            calls = s.options.timeline_iterations + 1;
            source = "traced run";
        }
        if (!traced) return {};
        ChargeTime charge{s.report.collector_seconds["timeline"]};
        s.report.timeline_source = source;
        if (!keep_the_candidates_work(*traced)) {
            s.report.notes.push_back("timeline: no kernel of the candidate in the trace");
            return {};
        }
        auto summary = gpu::summarize_timeline(*traced, calls);
        if (s.kernels.empty())
            s.kernels.push_back(kernel_data(s, s.entry_kernels.empty() ? std::string("candidate") : s.entry_kernels.front()));
        for (auto& data : s.kernels) data.timeline = summary;
        return {};
    }
};

}  // namespace

std::unique_ptr<Collector> make_timeline_collector() { return std::make_unique<TimelineCollector>(); }

}  // namespace kp::diagnose
