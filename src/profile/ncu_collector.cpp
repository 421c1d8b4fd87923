#include "profile/ncu_collector.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/process.h"
#include "profile/ncu_csv.h"
#include "profile/tool_locator.h"
#include "common/utf8.h"

namespace kp::profile {
namespace {

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

// Metrics that ncu derives without hardware counters (launch configuration, device attributes).
bool is_free_metric(const std::string& metric) {
    return starts_with(metric, "launch__") || starts_with(metric, "device__") || starts_with(metric, "profiler__");
}

// Composite throughput metrics gather many counters; measured alone: sm__throughput 8 passes,
// gpu__compute_memory_throughput 5. We charge the measured extra over a 1-pass baseline.
int throughput_metric_passes(const std::string& metric) {
    if (metric.find("__throughput") == std::string::npos) return 0;
    if (starts_with(metric, "sm__throughput")) return 7;
    if (starts_with(metric, "gpu__compute_memory_throughput")) return 4;
    return 3;  // dram/lts/l1tex throughput: an estimate between those two measurements
}

// Counters that took 3 passes alone on the H200 (every other one we use took 1): charge 2 extra.
int expensive_metric_extra_passes(const std::string& metric) {
    return starts_with(metric, "sm__ops_path_tensor_src_fp16") || starts_with(metric, "lts__t_sector_hit_rate") ? 2 : 0;
}

// Measured section costs (passes per kernel, H200): SpeedOfLight 10, WarpStateStats+SourceCounters 12.
int section_passes(const std::string& section) {
    if (section == "SpeedOfLight") return 10;
    if (section == "SourceCounters" || section == "WarpStateStats") return 6;
    return 4;
}

}  // namespace

int estimate_ncu_replay_passes(const std::vector<std::string>& metrics, const std::vector<std::string>& sections,
                               bool source_page) {
    // Raw counters: 15 roofline counters took 2 passes under CUPTI; about 8 counters share a pass.
    int raw_counters = 0, throughput = 0, expensive = 0;
    bool instruction_level = false;  // sass__/smsp__sass_* metrics need SASS patching: one more pass
    for (const std::string& metric : metrics) {
        if (is_free_metric(metric)) continue;
        int extra = throughput_metric_passes(metric);
        if (extra > 0) {
            throughput = std::max(throughput, extra);  // they share counters, so take the largest...
            throughput += 1;                           // ...plus one for each additional one
            continue;
        }
        // SASS-patched metrics share one instrumented pass (18 of them took 1 on the H200).
        if (metric.find("sass_") != std::string::npos || starts_with(metric, "sass__")) {
            instruction_level = true;
            continue;
        }
        ++raw_counters;
        expensive += expensive_metric_extra_passes(metric);
    }
    int passes = raw_counters == 0 && throughput == 0 ? (instruction_level ? 0 : 1) : (raw_counters + 7) / 8;
    passes += throughput + (instruction_level ? 1 : 0) + expensive;
    int section_total = 0;
    for (const std::string& section : sections) section_total += section_passes(section);
    passes += section_total;
    if (source_page) passes += 12;
    return std::clamp(passes, 1, 38);  // --set full, everything, measured 38
}

NcuCollector::NcuCollector(std::string ncu_path, std::optional<CollectorCache> cache)
    : ncu_path_(std::move(ncu_path)), cache_(std::move(cache)) {}

std::vector<std::string> NcuCollector::profile_command(const NcuRequest& request,
                                                       const std::optional<std::filesystem::path>& report) const {
    std::vector<std::string> argv = {ncu_path_.empty() ? std::string("ncu") : ncu_path_,
                                     "--clock-control", "none", "--print-units", "base"};
    if (!report) argv.push_back("--csv");
    if (!request.metrics.empty()) {
        std::string joined;
        for (const std::string& metric : request.metrics) joined += (joined.empty() ? "" : ",") + metric;
        argv.insert(argv.end(), {"--metrics", joined});
    }
    std::vector<std::string> sections = request.sections;
    if (request.source_page) {
        for (const char* needed : {"SourceCounters", "WarpStateStats"})
            if (std::find(sections.begin(), sections.end(), needed) == sections.end()) sections.push_back(needed);
        argv.insert(argv.end(), {"--import-source", "yes"});
    }
    for (const std::string& section : sections) argv.insert(argv.end(), {"--section", section});
    // With metrics only, an empty section folder spares ncu reading its ~30 section files
    // (measured 0.2 s of its 1.7 s start-up on the H200).
    if (sections.empty() && !request.empty_section_folder.empty())
        argv.insert(argv.end(), {"--section-folder", request.empty_section_folder.string()});
    if (!request.kernel_filter.empty()) argv.insert(argv.end(), {"-k", request.kernel_filter});
    if (request.launch_skip > 0) argv.insert(argv.end(), {"-s", std::to_string(request.launch_skip)});
    argv.insert(argv.end(), {"-c", std::to_string(std::max(1, request.launch_count))});
    if (report) argv.insert(argv.end(), {"--export", report->string(), "--force-overwrite"});
    argv.push_back("--");
    argv.insert(argv.end(), request.program_argv.begin(), request.program_argv.end());
    return argv;
}

std::vector<std::string> NcuCollector::import_command(const std::filesystem::path& report, const std::string& page) const {
    std::vector<std::string> argv = {ncu_path_.empty() ? std::string("ncu") : ncu_path_,
                                     "--import", report.string(), "--csv", "--print-units", "base", "--page", page};
    if (page == "source") argv.insert(argv.end(), {"--print-source", "sass"});
    return argv;
}

CollectorCost NcuCollector::cost(const NcuRequest& request) const {
    CollectorCost cost;
    cost.replay_passes = estimate_ncu_replay_passes(request.metrics, request.sections, request.source_page);
    // ncu start-up and attach ~2 s; each pass replays the kernel after restoring its memory
    // (~20 ms of save/restore per pass is our estimate); imports ~1 s each.
    const double launches = std::max(1, request.launch_count);
    cost.seconds = 2.0 + request.program_seconds + launches * cost.replay_passes * (request.kernel_seconds + 0.02);
    if (request.source_page) cost.seconds += 2.0;
    return cost;
}

Result<std::string> NcuCollector::run_ncu(const std::vector<std::string>& argv, const NcuRequest& request) const {
    ProcessOptions options;
    options.timeout = request.timeout;
    options.extra_environment = request.environment;
    if (request.working_directory) options.working_directory = request.working_directory->string();
    auto result = run_process(argv, options);
    if (!result) return result.error();
    const ProcessResult& run = *result;
    std::string combined = run.stdout_text + run.stderr_text;
    if (combined.find("ERR_NVGPUCTRPERM") != std::string::npos)
        return make_error("ncu has no permission to read GPU counters (ERR_NVGPUCTRPERM): run as root, with CAP_PERFMON/CAP_SYS_ADMIN, "
                          "or set NVreg_RestrictProfilingToAdminUsers=0; command: " + run.command_line);
    if (!run.succeeded()) {
        std::string tail = run.stderr_text.size() > 2000 ? run.stderr_text.substr(run.stderr_text.size() - 2000) : run.stderr_text;
        return make_error(run.describe_failure() + (tail.empty() ? "" : ": " + tail));
    }
    return run.stdout_text;
}

Result<NcuResult> NcuCollector::collect(const NcuRequest& request) const {
    if (request.program_argv.empty()) return make_error("ncu collector: no program to profile (empty argv)");
    NcuCollector resolved = *this;
    if (resolved.ncu_path_.empty()) {
        auto path = require_nvidia_tool("ncu");
        if (!path) return path.error();
        resolved.ncu_path_ = *path;
    }

    // The cache key covers what changes the output: the caller's key (which names the binary, its
    // inputs and the GPU) and what is collected. Not the program's argv, whose paths are scratch
    // files that differ on every run.
    std::string fingerprint;
    for (const auto& metric : request.metrics) fingerprint += metric + '\x1f';
    for (const auto& section : request.sections) fingerprint += "section:" + section + '\x1f';
    fingerprint += fmt::format("source={} filter={} skip={} count={}", request.source_page, request.kernel_filter,
                               request.launch_skip, std::max(1, request.launch_count));
    std::string key = request.cache_key.empty() ? "" : CollectorCache::make_key({name(), request.cache_key, fingerprint});

    std::string metrics_text, source_text;
    NcuResult result;
    bool cached = false;
    if (cache_ && !key.empty() && !request.refresh_cache) {
        if (auto hit = cache_->load(key)) {
            auto doc = nlohmann::json::parse(*hit, nullptr, false);
            if (doc.is_object()) {
                metrics_text = doc.value("metrics", "");
                source_text = doc.value("source", "");
                cached = true;
            }
        }
    }
    if (!cached) {
        std::optional<ScratchDirectory> no_sections;
        if (request.sections.empty() && !request.source_page && request.empty_section_folder.empty())
            if (auto dir = ScratchDirectory::create("kp-ncu-sections-")) no_sections.emplace(std::move(*dir));
        NcuRequest live = request;
        if (no_sections) live.empty_section_folder = no_sections->path();
        if (!request.source_page) {
            auto argv = resolved.profile_command(live);
            result.commands.push_back(join_command_line(argv));
            auto out = resolved.run_ncu(argv, live);
            if (!out) return out.error();
            metrics_text = std::move(*out);
        } else {
            auto scratch = ScratchDirectory::create("kp-ncu-");
            if (!scratch) return scratch.error();
            std::filesystem::path report = scratch->path() / "profile";
            auto argv = resolved.profile_command(request, report);
            result.commands.push_back(join_command_line(argv));
            auto run = resolved.run_ncu(argv, request);
            if (!run) return run.error();
            std::filesystem::path file = report;
            file += ".ncu-rep";
            for (const char* page : {"raw", "source"}) {
                auto import_argv = resolved.import_command(file, page);
                result.commands.push_back(join_command_line(import_argv));
                auto out = resolved.run_ncu(import_argv, request);
                if (!out) return out.error();
                (std::string(page) == "raw" ? metrics_text : source_text) = std::move(*out);
            }
        }
        if (cache_ && !key.empty()) {
            nlohmann::json doc = {{"metrics", metrics_text}, {"source", source_text}};
            (void)cache_->store(key, dump_json(doc));  // a cache write failure only costs a re-run later
        }
    }
    result.from_cache = cached;

    auto kernels = parse_ncu_csv(metrics_text);
    if (!kernels) return make_error("ncu output: " + kernels.error().message);
    if (kernels->empty())
        return make_error("ncu profiled no kernel" + (request.kernel_filter.empty() ? std::string() : " matching '" + request.kernel_filter + "'") +
                          " (did the program launch it? is -s too large?)");
    result.kernels = std::move(*kernels);
    if (request.source_page) {
        auto pages = parse_ncu_source_csv(source_text);
        if (!pages) return make_error("ncu source page: " + pages.error().message);
        result.source_pages = std::move(*pages);
    }
    return result;
}

}  // namespace kp::profile
