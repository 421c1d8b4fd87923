#include "profile/timeline_collector.h"

#include <system_error>

#include "common/files.h"
#include "common/process.h"

namespace kp::profile {

TimelineCollector::TimelineCollector(std::filesystem::path injection_library, std::optional<CollectorCache> cache)
    : library_(std::move(injection_library)), cache_(std::move(cache)) {}

CollectorCost TimelineCollector::cost(const TimelineRequest& request) const { return {0, request.program_seconds + 0.1}; }

Result<TimelineResult> TimelineCollector::collect(const TimelineRequest& request) const {
    if (request.program_argv.empty()) return make_error("timeline collector: no program to trace (empty argv)");
    TimelineResult result;
    result.command = join_command_line(request.program_argv);
    // The raw trace is what the cache keeps (a parser fix then applies to cached data too).
    const std::string key = request.cache_key.empty() ? "" : CollectorCache::make_key({name(), request.cache_key});
    std::optional<std::string> text;
    if (cache_ && !key.empty() && !request.refresh_cache) text = cache_->load(key);
    result.from_cache = text.has_value();
    if (!text) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(library_, ec))
            return make_error("timeline: the injection library " + library_.string() + " is missing (set KERNELPRO_HELPER_DIR)");
        auto scratch = ScratchDirectory::create("kp-timeline-");
        if (!scratch) return scratch.error();
        const std::filesystem::path trace = scratch->path() / "timeline.json";
        ProcessOptions options;
        options.timeout = request.timeout;
        options.extra_environment = request.environment;
        options.extra_environment["CUDA_INJECTION64_PATH"] = library_.string();
        options.extra_environment["KP_TIMELINE_OUT"] = trace.string();
        auto run = run_process(request.program_argv, options);
        if (!run) return run.error();
        if (!run->succeeded()) return make_error("timeline: the traced program failed: " + run->describe_failure());
        auto written = read_text_file(trace);
        if (!written)
            return make_error("timeline: the traced program wrote no trace (did it end with _exit without calling kp_timeline_flush?)");
        text = std::move(*written);
        if (cache_ && !key.empty()) (void)cache_->store(key, *text);  // a failed write only costs a re-run later
    }
    auto timeline = gpu::parse_timeline_json(*text);
    if (!timeline) return make_error("timeline: " + timeline.error().message);
    result.timeline = std::move(*timeline);
    return result;
}

}  // namespace kp::profile
