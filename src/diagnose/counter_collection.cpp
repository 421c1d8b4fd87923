#include "diagnose/counter_collection.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/files.h"
#include "common/process.h"
#include "gpu/helper_paths.h"
#include "profile/cupti_counter_collector.h"
#include "profile/tool_locator.h"
#include "common/utf8.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

namespace {

// ncu must not profile the worker's input generation and warm-up: --profile-from-start off. The
// collector does not add it, so a tiny wrapper inserts it into profiling runs (not imports).
Result<fs::path> make_ncu_wrapper(const fs::path& dir, const std::string& ncu) {
    fs::path wrapper = dir / "ncu";
    std::string text = "#!/bin/sh\nif [ \"$1\" = --import ]; then exec " + shell_quote(ncu) + " \"$@\"; fi\nexec " +
                       shell_quote(ncu) + " --profile-from-start off \"$@\"\n";
    if (auto s = write_file_atomically(wrapper, text); !s) return s.error();
    fs::permissions(wrapper, fs::perms::owner_all, fs::perm_options::add);
    return wrapper;
}

// ncu, retried once without the pass-count metric should this ncu not know it.
Result<profile::NcuResult> collect_counting_passes(const profile::NcuCollector& ncu, profile::NcuRequest request,
                                                   std::vector<std::string>& notes) {
    auto result = ncu.collect(request);
    if (result || result.error().message.find(profile::kReplayPassesMetric) == std::string::npos) return result;
    std::erase(request.metrics, std::string(profile::kReplayPassesMetric));
    notes.push_back(std::string("this ncu does not know ") + profile::kReplayPassesMetric + ": replay passes are estimated");
    return ncu.collect(request);
}

std::chrono::seconds collection_timeout(const ProfileOptions& options) {
    return std::chrono::seconds(static_cast<long>(std::max(60.0, options.budget_seconds * 2)));
}

}  // namespace

std::vector<std::string> worker_argv(const fs::path& worker, const fs::path& request) {
    return {"/bin/bash", "-c", "exec " + shell_quote(worker.string()) + " --channel-fd 3 3>/dev/null < " + shell_quote(request.string())};
}

CounterCollection::CounterCollection(const ProfileOptions& options, CounterTarget target, profile::CollectorCache cache,
                                     fs::path scratch, ProfileReport& report)
    : options_(&options), target_(std::move(target)), cache_(std::move(cache)), scratch_(std::move(scratch)), report_(&report),
      cupti_(cache_) {}

Result<CounterCollection> CounterCollection::open(const ProfileOptions& options, CounterTarget target, profile::CollectorCache cache,
                                                  fs::path scratch, ProfileReport& report) {
    CounterCollection c(options, std::move(target), std::move(cache), std::move(scratch), report);
    if (options.counters == CounterSource::ncu) return c;
    c.counters_library_ = gpu::find_helper("libkp_counters.so");
    if (!c.counters_library_) {
        if (options.counters == CounterSource::cupti) return make_error("libkp_counters.so not found (set KERNELPRO_HELPER_DIR)");
        report.notes.push_back("counters: libkp_counters.so not found, using ncu");
        return c;
    }
    c.cupti_usable_ = true;
    return c;
}

Result<profile::NcuResult> CounterCollection::collect(const std::vector<std::string>& metrics, bool source_page,
                                                      const std::string& stage, bool more_follow) {
    if (in_worker(source_page)) {
        auto collected = collect_in_worker(metrics, "counters" + stage, more_follow, std::nullopt);
        if (collected || options_->counters == CounterSource::cupti) return collected;
        report_->notes.push_back("counters in the worker failed, using ncu: " + collected.error().message);
        cupti_usable_ = false;
    }
    close();  // ncu runs the call under its own worker
    return collect_with_ncu(metrics, source_page, "ncu" + stage);
}

Result<profile::NcuResult> CounterCollection::collect_follow_up(const std::vector<std::string>& metrics, const FollowUp& extra,
                                                                const std::string& stage) {
    if (!cupti_usable_) {  // ncu counted before: it counts the rest, and the timeline collector traces
        close();
        if (metrics.empty()) return profile::NcuResult{};
        return collect_with_ncu(metrics, false, "ncu" + stage);
    }
    auto collected = collect_in_worker(metrics, "counters" + stage, false, extra);
    if (collected || options_->counters == CounterSource::cupti || metrics.empty()) return collected;
    report_->notes.push_back("counters in the worker failed, using ncu: " + collected.error().message);
    cupti_usable_ = false;
    return collect_with_ncu(metrics, false, "ncu" + stage);
}

void CounterCollection::close() {
    if (auto closed = cupti_.close(); !closed) report_->notes.push_back("counters worker: " + closed.error().message);
}

Result<profile::NcuResult> CounterCollection::collect_in_worker(const std::vector<std::string>& metrics, const std::string& label,
                                                                bool keep_open, const std::optional<FollowUp>& follow_up) {
    profile::CounterRequest request;
    request.metrics = metrics;
    request.worker = target_.request;
    request.worker_executable = target_.worker;
    request.counters_library = *counters_library_;
    request.max_kernels = options_->max_kernels;
    request.limits = target_.limits;
    request.cache_key = target_.cache_key;
    request.refresh_cache = target_.refresh_cache;
    request.timeout = collection_timeout(*options_);
    request.environment = options_->environment;
    request.keep_open = keep_open;
    if (follow_up) {  // the call's trace and samples as the follow-up asks (a fresh worker switches sampling on early itself)
        request.trace_calls = follow_up->trace_calls;
        request.pc_sampling = follow_up->sample_pcs;
        request.call_seconds = follow_up->call_seconds;
    } else if (target_.call_data_later) {
        request.pc_sampling_later = target_.pc_sampling;
    } else {
        request.trace_calls = target_.trace_calls;
        request.pc_sampling = target_.pc_sampling;
    }
    const bool fresh_worker = !cupti_.is_open();
    auto collected = [&] {
        ChargeTime charge{report_->collector_seconds["counters"]};
        return cupti_.collect(request);
    }();
    if (!collected) return collected.error();
    ProfileReport& report = *report_;
    for (const auto& note : collected->notes) report.notes.push_back(note);
    if (request.trace_calls > 0) {
        if (collected->timeline) call_timeline_.emplace(std::move(*collected->timeline), collected->traced_calls);
        else report.notes.push_back("timeline in the counters run: " +
                                    (collected->timeline_error.empty() ? std::string("none in the reply") : collected->timeline_error));
        target_.trace_calls = 0;  // the call's trace is taken once; later collections need none
    }
    if (request.pc_sampling) {
        if (collected->pc_sampling) pc_sampling_ = std::move(collected->pc_sampling);
        else report.notes.push_back("pc sampling: " + (collected->pc_sampling_error.empty() ? std::string("none in the reply")
                                                                                             : collected->pc_sampling_error));
        target_.pc_sampling = false;
    }
    if (!options_->counters_reply_file.empty() && report.cupti_runs == 0)
        if (auto s = write_file_atomically(options_->counters_reply_file, dump_json(collected->reply, 1)); !s)
            report.notes.push_back("--keep-counters: " + s.error().message);
    profile::NcuResult result;
    result.kernels = std::move(collected->kernels);
    result.from_cache = collected->from_cache;
    if (result.from_cache) {
        report.cached.push_back(label);
    } else {
        report.cupti_runs++;
        if (fresh_worker) report.worker_starts++;
        if (const auto& seconds = collected->reply.value("seconds", nlohmann::json::object()); seconds.is_object())
            for (const auto& [phase, value] : seconds.items())
                if (value.is_number() && phase != "total") report.worker_seconds[phase] += value.get<double>();
        report.estimated_passes += cupti_.cost(request).replay_passes;
        report.counted_passes += profile::counted_replay_passes(result.kernels);
        report.commands.push_back(fmt::format("{} (profile_counters{}: {} metrics through CUPTI's range profiler, {} passes{}{}{})",
                                              target_.worker.string(), fresh_worker ? "" : ", follow-up in the same worker", metrics.size(),
                                              collected->passes, collected->chip.empty() ? "" : " on " + collected->chip,
                                              request.pc_sampling ? ", PC sampling" : "", request.trace_calls > 0 ? ", trace" : ""));
    }
    return result;
}

Status CounterCollection::ensure_ncu() {
    if (ncu_) return {};
    std::string ncu_path = options_->ncu_path;
    if (ncu_path.empty()) {
        auto located = profile::require_nvidia_tool("ncu");
        if (!located) return make_error("ncu not found: " + located.error().message);
        ncu_path = *located;
    }
    auto wrapper = make_ncu_wrapper(scratch_, ncu_path);
    if (!wrapper) return wrapper.error();
    ncu_.emplace(wrapper->string(), cache_);
    ncu_display_ = {wrapper->string(), shell_quote(ncu_path) + " --profile-from-start off"};
    return {};
}

Result<profile::NcuResult> CounterCollection::collect_with_ncu(const std::vector<std::string>& metrics, bool source_page,
                                                               const std::string& label) {
    if (auto s = ensure_ncu(); !s) return s.error();
    profile::NcuRequest request;
    request.metrics = metrics;
    request.source_page = source_page;
    request.program_argv = worker_argv(target_.worker, target_.request_file);
    request.environment = options_->environment;
    request.launch_count = options_->max_kernels;
    request.cache_key = target_.cache_key;
    request.refresh_cache = target_.refresh_cache;
    request.timeout = collection_timeout(*options_);
    ProfileReport& report = *report_;
    auto collected = [&] {
        ChargeTime charge{report.collector_seconds["ncu"]};
        return collect_counting_passes(*ncu_, request, report.notes);
    }();
    if (!collected) return collected;
    if (collected->from_cache) {
        report.cached.push_back(label);
    } else {
        report.ncu_runs++;
        report.estimated_passes += profile::estimate_ncu_replay_passes(request.metrics, {}, source_page);
        report.counted_passes += profile::counted_replay_passes(collected->kernels);
    }
    record_ncu_commands(collected->commands);
    return collected;
}

// The commands name the wrapper; the record shows the ncu it runs, with the option it adds.
void CounterCollection::record_ncu_commands(const std::vector<std::string>& commands) {
    const auto& [wrapper, shown] = ncu_display_;
    for (std::string c : commands) {
        if (!wrapper.empty() && c.rfind(wrapper, 0) == 0) {
            c = c.substr(wrapper.size());
            c = (c.rfind(" --import", 0) == 0 ? shown.substr(0, shown.find(" --profile-from-start")) : shown) + c;
        }
        report_->commands.push_back(c);
    }
}

}  // namespace kp::diagnose
