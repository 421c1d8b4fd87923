#include "cli/profile_pipeline.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "analysis/feedback.h"
#include "analysis/roofline.h"
#include "analysis/tool_context.h"
#include "analysis/tool_registry.h"
#include "cli/counter_collection.h"
#include "common/files.h"
#include "common/process.h"
#include "eval/protocol.h"
#include "eval/worker_client.h"
#include "gpu/ceilings.h"
#include "gpu/ceilings_cache.h"
#include "gpu/cuda_driver.h"
#include "gpu/helper_paths.h"
#include "gpu/occupancy.h"
#include "gpu/timeline.h"
#include "profile/ncu_collector.h"
#include "profile/ncu_csv.h"
#include "profile/ptxas_report.h"
#include "profile/sass_collector.h"
#include "profile/sass_summary.h"
#include "profile/timeline_collector.h"
#include "profile/tool_locator.h"

namespace kp::cli {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

bool wants(const ProfileOptions& o, const char* collector) { return o.collectors.count(collector) > 0; }

// ---- adapters from kp_gpu types to the analysis library's own structs ----

analysis::DeviceCeilings to_analysis_ceilings(const gpu::DeviceCeilings& c) {
    analysis::DeviceCeilings out = analysis::h200_datasheet_ceilings();
    out.name = c.label.empty() ? c.device.name : c.label;
    if (auto v = c.value("dram_copy")) out.dram_bytes_per_second = *v;
    if (auto v = c.value("l2_read")) out.l2_bytes_per_second = *v;
    if (auto v = c.value("fp32_fma")) {
        out.fp32_flops = *v;
        // The FLOP/s figures hold at the clock measured while they ran.
        if (const gpu::Ceiling* f = c.find("fp32_fma"); f && f->sm_clock_mhz_mean) out.sm_clock_hz = *f->sm_clock_mhz_mean * 1e6;
    }
    // Every FLOP/s ceiling is expressed at out.sm_clock_hz (the roofline rescales to the clock a
    // kernel ran at): one measured at another clock (tensor work runs near 1.6 GHz on the H200) is
    // rescaled from its own, else it would be scaled down twice.
    auto at_reference_clock = [&](const char* name, double value) {
        const gpu::Ceiling* f = c.find(name);
        if (!f || !f->sm_clock_mhz_mean || *f->sm_clock_mhz_mean <= 0 || out.sm_clock_hz <= 0) return value;
        return value * out.sm_clock_hz / (*f->sm_clock_mhz_mean * 1e6);
    };
    if (auto v = c.value("fp64_fma")) out.fp64_flops = at_reference_clock("fp64_fma", *v);
    if (auto v = c.value("tensor_bf16")) out.bf16_tensor_flops = at_reference_clock("tensor_bf16", *v);
    const gpu::DeviceInfo& d = c.device;
    if (d.sm_count > 0) out.sm_count = d.sm_count;
    if (d.l2_cache_bytes > 0) out.l2_bytes = static_cast<double>(d.l2_cache_bytes);
    if (d.shared_memory_per_sm_bytes > 0) out.shared_bytes_per_sm = static_cast<double>(d.shared_memory_per_sm_bytes);
    if (d.registers_per_sm > 0) out.registers_per_sm = d.registers_per_sm;
    if (d.max_warps_per_sm > 0) out.max_warps_per_sm = d.max_warps_per_sm;
    if (d.max_blocks_per_sm > 0) out.max_blocks_per_sm = d.max_blocks_per_sm;
    return out;
}

analysis::OccupancyInfo to_analysis_occupancy(const gpu::OccupancyResult& r, const gpu::OccupancyLimits& limits,
                                              const gpu::LaunchConfiguration& launch) {
    analysis::OccupancyInfo info;
    info.block_size = launch.threads_per_block;
    info.registers_per_thread = launch.registers_per_thread;
    info.shared_bytes_per_block = static_cast<double>(launch.static_shared_memory_bytes + launch.dynamic_shared_memory_bytes);
    info.block_limits = {{"warps", r.blocks_limit_warps},
                         {"registers", r.blocks_limit_registers},
                         {"shared_memory", r.blocks_limit_shared_memory},
                         {"blocks", r.blocks_limit_blocks}};
    info.theoretical_warps_per_sm = r.active_warps_per_sm;
    info.max_warps_per_sm = limits.max_warps_per_sm;
    return info;
}

analysis::TimelineSummary to_analysis_timeline(const gpu::TimelineSummary& s) {
    analysis::TimelineSummary t;
    const double calls = std::max(1, s.calls);
    t.kernel_launches = static_cast<int>(std::lround(s.kernels_per_call));
    t.kernel_seconds = s.kernel_duration.total_ns * 1e-9 / calls;
    t.span_seconds = s.gpu_span_ns * 1e-9 / calls;
    t.median_kernel_seconds = s.kernel_duration.median_ns * 1e-9;
    t.mean_launch_latency_seconds = s.launch_overhead.mean_ns * 1e-9;
    t.memcpy_count = static_cast<int>(std::lround(s.memcpy_total.count / calls));
    t.memcpy_seconds = s.memcpy_total.total_ns * 1e-9 / calls;
    t.host_synchronizations = static_cast<int>(std::lround(s.host_synchronization_calls / calls));
    return t;
}

// ---- environment ----

// The cache key of every GPU result of one profile: the binary, the task (its shapes and inputs),
// the GPU with its driver, and the ncu asked for.
std::string profile_cache_key(const BuildOutcome& build, const TaskSpec& task, const std::string& device, const std::string& ncu) {
    return profile::CollectorCache::make_key({"profile/1", build.key, to_json(task).dump(), device, ncu});
}

struct Ceilings {
    analysis::DeviceCeilings value = analysis::h200_datasheet_ceilings();
    std::string source;
    gpu::OccupancyLimits limits = gpu::OccupancyLimits::sm90();
    bool gpu_present = false;
    std::string gpu_error;
    std::string device_identity;  // GPU name and driver: part of every cache key
};

Ceilings load_ceilings_of_this_gpu();

// The ceilings given by file (`kernelpro device --json` output or its cache file) replace the
// cached or datasheet values; the GPU, if any, is still detected.
void apply_ceilings_file(Ceilings& c, const fs::path& file) {
    auto parsed = gpu::read_ceilings_file(file);
    if (!parsed) {
        c.source += " (cannot read " + file.string() + ": " + parsed.error().message + ")";
        return;
    }
    c.value = to_analysis_ceilings(*parsed);
    if (parsed->device.max_warps_per_sm > 0) c.limits = gpu::OccupancyLimits::from_device(parsed->device);
    c.source = "measured (" + file.string() + ")";
    if (c.device_identity.empty()) c.device_identity = parsed->device.name;
}

Ceilings load_ceilings(const fs::path& file) {
    Ceilings c = load_ceilings_of_this_gpu();
    if (!file.empty()) apply_ceilings_file(c, file);
    return c;
}

Ceilings load_ceilings_of_this_gpu() {
    Ceilings c;
    auto driver = gpu::CudaDriver::load();
    if (!driver) {
        c.gpu_error = driver.error().message;
        c.source = "datasheet (H200 SXM; " + c.gpu_error + ")";
        return c;
    }
    auto info = driver->device_info(0);
    if (!info) {
        c.gpu_error = info.error().message;
        c.source = "datasheet (H200 SXM; " + c.gpu_error + ")";
        return c;
    }
    c.gpu_present = true;
    c.limits = gpu::OccupancyLimits::from_device(*info);
    const std::string driver_version = gpu::ceilings_driver_version(driver->driver_version());
    c.device_identity = info->name + " / driver " + driver_version;
    fs::path path = gpu::ceilings_cache_path(cache_directory(), info->name, driver_version);
    if (auto parsed = gpu::read_ceilings_file(path)) {
        c.value = to_analysis_ceilings(*parsed);
        c.source = "measured (" + path.string() + ")";
        return c;
    }
    c.source = "datasheet (H200 SXM; run `kernelpro device` to measure " + info->name + ")";
    return c;
}

WorkerRequest profile_request(const TaskSpec& task, const BuildOutcome& build, int iterations) {
    WorkerRequest request;
    request.mode = "profile_run";
    request.task = to_json(task);
    request.candidate_library = build.library.string();
    request.seed = 42;
    request.profile_iterations = iterations;
    return request;
}

Result<fs::path> write_request(const fs::path& path, const WorkerRequest& request) {
    if (auto s = write_file_atomically(path, to_json(request).dump()); !s) return s.error();
    return path;
}

int parse_block_threads(const std::string& block) {
    // "(256, 1, 1)" -> 256
    int product = 1, count = 0;
    std::string digits;
    for (char ch : block + ",") {
        if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
        else if (!digits.empty()) {
            product *= std::stoi(digits);
            digits.clear();
            ++count;
        }
    }
    return count ? product : 0;
}

std::string short_name(const std::string& name) {
    auto paren = name.find('(');
    return paren == std::string::npos ? name : name.substr(0, paren);
}

// Run the tools that can judge from SASS/ptxas/occupancy alone (no roofline): the offline path.
analysis::Diagnosis diagnose_offline(const analysis::ProfileData& data, const ProfileOptions& options) {
    analysis::Diagnosis d;
    d.kernel_name = data.kernel_name;
    d.roofline.reason = "no ncu metrics: roofline not measured";
    analysis::ToolContext context(data, d.roofline);
    for (const analysis::MicroTool* tool : analysis::default_tool_registry().all()) {
        if (!options.tools.empty() && std::find(options.tools.begin(), options.tools.end(), tool->name()) == options.tools.end())
            continue;
        auto needs = tool->needs();
        if ((needs.sass && !data.sass) || needs.timeline) {
            d.tools_without_data.emplace_back(tool->name());
            continue;
        }
        d.tools_run.emplace_back(tool->name());
        auto finding = tool->diagnose(context);
        if (!finding) continue;
        finding->tool = std::string(tool->name());
        finding->estimated_gain = std::clamp(finding->estimated_gain, 0.0, 0.95);
        finding->severity = analysis::severity_for_gain(finding->estimated_gain);
        d.findings.push_back(std::move(*finding));
    }
    std::stable_sort(d.findings.begin(), d.findings.end(),
                     [](const analysis::Finding& a, const analysis::Finding& b) { return a.estimated_gain > b.estimated_gain; });
    return d;
}

void merge_metrics(profile::KernelMetrics& into, const profile::KernelMetrics& from) {
    for (const auto& [name, value] : from.metrics) into.metrics.insert_or_assign(name, value);
}

}  // namespace

FirstRunPlan plan_first_ncu_run(const ProfileOptions& options, const std::vector<const analysis::MicroTool*>& tools) {
    FirstRunPlan plan;
    plan.roofline_metrics = analysis::roofline_metric_names();
    for (const char* m : {kPassCountMetric, "launch__block_size", "launch__grid_size", "launch__registers_per_thread",
                          "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic", "launch__waves_per_multiprocessor"})
        if (std::find(plan.roofline_metrics.begin(), plan.roofline_metrics.end(), m) == plan.roofline_metrics.end())
            plan.roofline_metrics.push_back(m);
    plan.metrics = plan.roofline_metrics;
    if (options.stages == StagePlan::two_runs) return plan;
    // One run when every tool's counters fit the budget along with the roofline's: measured on the
    // H200 they add a few passes to one ncu start-up, while a second ncu run costs a whole start-up
    // again. Two runs (automatic) when the budget is too tight for that.
    analysis::PlanBudget budget;
    budget.max_replay_passes = options.budget_passes - profile::estimate_ncu_replay_passes(plan.roofline_metrics, {}, false);
    budget.max_seconds = options.budget_seconds;
    analysis::PlanInputs inputs;
    inputs.sass_cached = true;
    inputs.source_page_allowed = options.collectors.count("source") > 0;
    analysis::ProfilingPlan tools_plan = analysis::plan_profiling(analysis::RooflineClass::balanced, tools, budget, inputs);
    if (options.stages == StagePlan::automatic && !tools_plan.dropped.empty()) return plan;
    for (const auto& m : tools_plan.metrics)
        if (std::find(plan.metrics.begin(), plan.metrics.end(), m) == plan.metrics.end()) plan.metrics.push_back(m);
    plan.source_page = tools_plan.source_page;
    plan.all_tools = true;
    plan.tools_plan = std::move(tools_plan);
    return plan;
}

analysis::DeviceCeilings analysis_ceilings(const gpu::DeviceCeilings& measured) { return to_analysis_ceilings(measured); }

Result<std::pair<std::set<std::string>, bool>> apply_collector_list(const std::vector<std::string>& items,
                                                                    const std::set<std::string>& base) {
    std::set<std::string> result = base;
    bool replaced = false, timeline_named = false;
    for (const std::string& item : items) {
        const bool add = item.front() == '+', remove = item.front() == '-';
        std::string name = add || remove ? item.substr(1) : item;
        if (!all_profile_collectors().count(name))
            return make_error("unknown collector '" + name + "' (known: " + known_collector_list() + ")");
        if (name == "timeline" && !remove) timeline_named = true;
        if (remove) result.erase(name);
        else if (add) result.insert(name);
        else {
            if (!replaced) result.clear();
            replaced = true;
            result.insert(name);
        }
    }
    return std::make_pair(result, timeline_named);
}

Result<ProfileReport> profile_candidate_report(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options) {
    if (!build.ok()) return make_error("the candidate did not build: " + build.message);
    auto start = Clock::now();
    auto progress = [&](const std::string& line) {
        if (options.on_progress) options.on_progress(line);
    };
    ProfileReport report;
    report.task = task.name;
    report.candidate = build.source_copy.string();
    report.library = build.library.string();
    for (const auto& c : options.collectors)
        if (!all_profile_collectors().count(c)) return make_error("unknown collector '" + c + "' (known: " + known_collector_list() + ")");
    for (const auto& t : options.tools)
        if (!analysis::default_tool_registry().find(t)) return make_error("unknown tool '" + t + "' (see --list-tools)");

    // The CPU-side collectors overlap the GPU ones: the ceilings (which start the driver) and the
    // SASS (cuobjdump + nvdisasm) run on their own threads while ncu starts.
    auto ceilings_future = std::async(std::launch::async, load_ceilings, options.ceilings_file);
    // Always written; read unless use_cache is off (then everything is collected afresh and replaces
    // what the cache held).
    const profile::CollectorCache cache(options.cache_directory.empty() ? cache_directory() / "profile" : options.cache_directory);
    const bool refresh = !options.use_cache;
    using SassOutcome = std::pair<std::optional<Result<profile::SassCollection>>, double>;  // and its seconds
    auto sass_future = std::async(std::launch::async, [&]() -> SassOutcome {
        if (!wants(options, "sass")) return {std::nullopt, 0.0};
        auto t0 = Clock::now();
        profile::SassCollector collector({}, {}, cache);
        profile::SassRequest sass_request;
        sass_request.binary = build.library;
        sass_request.cache_key = build.key;
        sass_request.refresh_cache = refresh;
        auto collected = collector.collect(sass_request);
        return {std::move(collected), since(t0)};
    });
    // Runs body, adds its wall time to the collector's, and returns what body returns.
    auto timed = [&](const char* collector, auto&& body) {
        ChargeTime charge{report.collector_seconds[collector]};
        return body();
    };

    // ---- offline collectors ----
    std::optional<profile::SassCollection> sass;
    if (wants(options, "sass")) progress("sass: disassembling " + build.library.filename().string());
    // Waits for the SASS thread; called where the SASS is first needed (after ncu, when it runs).
    bool sass_joined = false;
    auto join_sass = [&] {
        if (sass_joined) return;
        sass_joined = true;
        timed("sass wait", [&] {
            auto [collected, seconds] = sass_future.get();
            if (collected) {
                report.collector_seconds["sass"] = seconds;
                if (*collected) {
                    if ((*collected)->from_cache) report.cached.push_back("sass");
                    sass = std::move(**collected);
                } else {
                    report.notes.push_back("sass: " + collected->error().message);
                }
            }
        });
    };
    Ceilings ceilings = ceilings_future.get();
    report.ceilings_source = ceilings.source;

    std::optional<profile::PtxasReport> ptxas;
    if (wants(options, "ptxas")) {
        auto parsed = profile::parse_ptxas_report(build.ptxas_report);
        if (parsed && !parsed->functions.empty()) ptxas = std::move(*parsed);
        else report.notes.push_back("ptxas: no resource report in the build log");
    }
    auto base_data = [&](const std::string& kernel_name) {
        join_sass();
        analysis::ProfileData data;
        data.kernel_name = kernel_name;
        data.ceilings = ceilings.value;
        if (task.cost.flops > 0) data.task.min_flops = task.cost.flops;
        if (task.cost.bytes > 0) data.task.min_bytes = task.cost.bytes;
        const std::string& p = task.cost.precision;
        data.task.precision = p == "f64" ? analysis::FlopPrecision::fp64
                            : p == "bf16" || p == "f16" ? analysis::FlopPrecision::bf16_tensor
                            : p == "tf32" ? analysis::FlopPrecision::tf32_tensor
                                          : analysis::FlopPrecision::fp32;
        if (sass)
            if (const profile::SassFunction* f = sass->find_function(kernel_name)) {
                data.sass_function = *f;
                // Line info names the file nvcc compiled (a scratch copy, renamed into the build cache
                // afterwards): show the candidate's own name instead.
                const std::string compiled = build.source_copy.filename().string();
                const std::string shown = options.source_name.empty() ? build.source_copy.string() : options.source_name;
                for (auto& instruction : data.sass_function->instructions)
                    if (instruction.location && fs::path(instruction.location->file).filename() == compiled &&
                        instruction.location->file.find(build.key) != std::string::npos)
                        instruction.location->file = shown;
                data.sass = profile::summarize_sass(*f);
            }
        if (ptxas) {
            const profile::PtxasFunction* f = ptxas->find(kernel_name);
            if (!f && data.sass_function) f = ptxas->find(data.sass_function->name);
            if (f) data.ptxas = *f;
        }
        return data;
    };
    // Entry kernels by mangled name, from ptxas (else SASS).
    std::vector<std::string> entry_kernels;
    if (ptxas)
        for (const auto& f : ptxas->functions)
            if (f.entry && std::find(entry_kernels.begin(), entry_kernels.end(), f.name) == entry_kernels.end()) entry_kernels.push_back(f.name);
    if (entry_kernels.empty()) join_sass();
    if (entry_kernels.empty() && sass)
        for (const auto& cubin : sass->cubins)
            for (const auto& f : cubin.program.functions) entry_kernels.push_back(f.name);

    auto offline_report = [&](const std::string& why) -> Result<ProfileReport> {
        report.environment_error = why;
        for (const std::string& name : entry_kernels) {
            KernelDiagnosis k;
            k.diagnosis = diagnose_offline(base_data(name), options);
            report.kernels.push_back(std::move(k));
        }
        report.seconds = since(start);
        return report;
    };

    std::vector<analysis::ProfileData> kernels;
    bool stage2_done = false;  // every tool's counters are in hand already
    analysis::ProfilingPlan one_run_plan;
    if (!options.ncu_csv.empty()) {
        // Recorded counters: what a profile of this build measured before (or elsewhere).
        auto text = read_text_file(options.ncu_csv);
        if (!text) return make_error("cannot read the ncu CSV: " + text.error().message);
        auto parsed = profile::parse_ncu_csv(*text);
        if (!parsed) return make_error(options.ncu_csv.string() + ": " + parsed.error().message);
        if (parsed->empty()) return make_error(options.ncu_csv.string() + ": no kernel in it");
        for (const auto& k : *parsed) {
            auto data = base_data(k.name);
            data.metrics = k;
            kernels.push_back(std::move(data));
        }
        report.notes.push_back("counters from " + options.ncu_csv.string() + " (not measured now; " +
                               std::to_string(counted_passes(*parsed)) + " replay passes when recorded)");
        stage2_done = true;
    }

    // ---- GPU collectors ----
    const bool need_gpu = options.ncu_csv.empty() && (wants(options, "ncu") || wants(options, "timeline"));
    if (!need_gpu && kernels.empty()) return offline_report("");
    if (need_gpu && !ceilings.gpu_present)
        return offline_report(ceilings.gpu_error + "; counters, the roofline, occupancy with the real launch and "
                              "the timeline need a GPU: showing the SASS/ptxas findings only");
    auto worker = need_gpu ? find_worker_executable() : Result<fs::path>(fs::path());
    if (!worker) return offline_report("kernelpro-worker not found: " + worker.error().message);
    auto scratch_dir = ScratchDirectory::create("kp-profile-");
    if (!scratch_dir) return scratch_dir.error();
    const fs::path& scratch = scratch_dir->path();

    std::vector<std::string> stage1_metrics;
    // What every cached GPU result depends on: the binary, the task (its inputs), the GPU, the tool.
    const std::string cache_key = profile_cache_key(build, task, ceilings.device_identity, options.ncu_path);
    std::optional<CounterCollection> counters;
    // The tools that may run: those named, else every tool (the class picks among them later).
    std::vector<const analysis::MicroTool*> candidate_tools;
    if (options.tools.empty()) candidate_tools = analysis::default_tool_registry().all();
    else
        for (const auto& name : options.tools) candidate_tools.push_back(analysis::default_tool_registry().find(name));
    if (need_gpu && wants(options, "ncu")) {
        // The request is written even when the worker collects the counters itself, so that ncu (a
        // fallback, stage 2's source page, scripts/gpu-profile-check's `--set full`) can run the same call.
        CounterTarget target{*worker, profile_request(task, build, 1), {}, cache_key, refresh, ceilings.limits};
        target.request_file = options.request_file.empty() ? scratch / "request1.json" : fs::absolute(options.request_file);
        if (!options.request_file.empty()) fs::create_directories(target.request_file.parent_path());
        if (auto written = write_request(target.request_file, target.request); !written) return written.error();
        auto opened = CounterCollection::open(options, std::move(target), cache, scratch, report);
        if (!opened) return offline_report(opened.error().message);
        counters.emplace(std::move(*opened));
        FirstRunPlan first = plan_first_ncu_run(options, candidate_tools);
        stage1_metrics = first.roofline_metrics;
        if (first.all_tools) {
            one_run_plan = first.tools_plan;
            stage2_done = true;
        }
        progress(fmt::format("{}: {} metrics{}{}", counters->in_worker(first.source_page) ? "counters (CUPTI, in the worker)" : "ncu",
                             first.metrics.size(),
                             first.source_page ? " + source page" : "",
                             stage2_done ? " (roofline and every tool, one run)" : " (stage 1: roofline)"));
        auto result = counters->collect(first.metrics, first.source_page);
        if (!result) return offline_report("counters failed: " + result.error().message);
        for (const auto& k : result->kernels) {
            auto data = base_data(k.name);
            data.metrics = k;
            for (const auto& page : result->source_pages)
                if (short_name(page.kernel_name) == short_name(k.name) && !data.source) data.source = page;
            kernels.push_back(std::move(data));
        }
    }

    // Timeline: the worker under the CUPTI injection library. Host gaps and launch overhead only
    // exist between launches, so by default it runs when the counters saw two or more kernels in a call
    // (or when no counters were collected to say); asked for by name, it always runs.
    const bool timeline_useful = options.timeline_always || !wants(options, "ncu") || kernels.size() >= 2;
    if (need_gpu && wants(options, "timeline") && !timeline_useful)
        report.notes.push_back("timeline: skipped, one kernel launch per call (ask with --collectors ...,timeline)");
    if (need_gpu && wants(options, "timeline") && timeline_useful) {
        auto library = gpu::find_helper("libkp_timeline.so");
        auto req = write_request(scratch / "request_timeline.json", profile_request(task, build, options.timeline_iterations));
        std::optional<gpu::Timeline> traced;
        if (!library) report.notes.push_back("timeline: libkp_timeline.so not found (set KERNELPRO_HELPER_DIR)");
        else if (!req) report.notes.push_back("timeline: " + req.error().message);
        else {
            profile::TimelineCollector collector(*library, cache);
            profile::TimelineRequest request;
            request.program_argv = worker_argv(*worker, *req);
            request.cache_key = cache_key + "/iterations=" + std::to_string(options.timeline_iterations);
            request.refresh_cache = refresh;
            progress("timeline: CUPTI activity trace");
            auto collected = timed("timeline", [&] { return collector.collect(request); });
            if (!collected) report.notes.push_back(collected.error().message);
            else {
                if (collected->from_cache) report.cached.push_back("timeline");
                traced = std::move(collected->timeline);
            }
        }
        if (traced) {
            // Keep the candidate's kernels only (its own and library ones such as cuBLAS; the
            // worker's kp_harness_* kernels fill inputs and flush L2), and the transfers inside
            // their span. The trace holds the warm-up call too: iterations + 1 calls.
            gpu::Timeline t = std::move(*traced);
            std::erase_if(t.kernels, [&](const gpu::TimelineKernel& k) { return k.name.find("kp_harness_") != std::string::npos; });
            if (!t.kernels.empty()) {
                std::uint64_t lo = UINT64_MAX, hi = 0;
                for (const auto& k : t.kernels) lo = std::min(lo, k.start_ns), hi = std::max(hi, k.end_ns);
                std::erase_if(t.memcpys, [&](const auto& m) { return m.start_ns < lo || m.end_ns > hi; });
                std::erase_if(t.memsets, [&](const auto& m) { return m.start_ns < lo || m.end_ns > hi; });
                std::erase_if(t.synchronizations, [&](const auto& m) { return m.start_ns < lo || m.end_ns > hi; });
                std::erase_if(t.runtime_api, [&](const auto& m) { return m.end_ns < lo || m.start_ns > hi; });
                auto summary = to_analysis_timeline(gpu::summarize_timeline(t, options.timeline_iterations + 1));
                if (kernels.empty()) {
                    auto data = base_data(entry_kernels.empty() ? std::string("candidate") : entry_kernels.front());
                    kernels.push_back(std::move(data));
                }
                for (auto& data : kernels) data.timeline = summary;
            } else {
                report.notes.push_back("timeline: no kernel of the candidate in the trace");
            }
        }
    }

    // Longest first.
    std::stable_sort(kernels.begin(), kernels.end(), [](const analysis::ProfileData& a, const analysis::ProfileData& b) {
        double da = a.metrics ? a.metrics->number("gpu__time_duration.sum").value_or(0) : 0;
        double db = b.metrics ? b.metrics->number("gpu__time_duration.sum").value_or(0) : 0;
        return da > db;
    });

    // ---- classify; stage 2 for each kernel class ----
    analysis::DiagnosisOptions diag_options;
    diag_options.only_tools = options.tools;
    diag_options.gate_by_class = options.tools.empty();  // tools picked by name run whatever the class
    std::vector<std::optional<analysis::RooflineResult>> rooflines(kernels.size());
    std::vector<analysis::ProfilingPlan> plans(kernels.size());
    std::vector<std::string> extra_metrics;
    bool source_page = false;
    for (size_t i = 0; i < kernels.size(); ++i) {
        if (!kernels[i].metrics) continue;
        auto roofline = analysis::classify_roofline(kernels[i]);
        if (!roofline) {
            report.notes.push_back("roofline " + short_name(kernels[i].kernel_name) + ": " + roofline.error().message);
            continue;
        }
        rooflines[i] = *roofline;
        std::vector<const analysis::MicroTool*> tools;
        if (options.tools.empty()) tools = analysis::default_tool_registry().for_class(roofline->kind);
        else
            for (const auto& name : options.tools) tools.push_back(analysis::default_tool_registry().find(name));
        analysis::PlanBudget budget;
        budget.max_replay_passes = std::max(0, options.budget_passes - report.estimated_passes);
        budget.max_seconds = std::max(0.0, options.budget_seconds - since(start));
        analysis::PlanInputs inputs;
        inputs.kernel_seconds = std::max(1e-6, roofline->duration_seconds);
        inputs.sass_cached = true;
        inputs.source_page_allowed = wants(options, "source");
        if (stage2_done) {
            // The one run held every tool's counters: the plan is the class's share of it.
            plans[i] = one_run_plan;
            plans[i].kind = roofline->kind;
            std::erase_if(plans[i].tools, [&](const std::string& name) {
                return std::none_of(tools.begin(), tools.end(), [&](const analysis::MicroTool* t) { return t->name() == name; });
            });
            continue;
        }
        plans[i] = analysis::plan_profiling(roofline->kind, tools, budget, inputs);
        for (const auto& m : plans[i].metrics)
            if (std::find(stage1_metrics.begin(), stage1_metrics.end(), m) == stage1_metrics.end() &&
                std::find(extra_metrics.begin(), extra_metrics.end(), m) == extra_metrics.end())
                extra_metrics.push_back(m);
        source_page = source_page || plans[i].source_page;
    }
    if (counters && (!extra_metrics.empty() || source_page)) {
        progress(fmt::format("counters stage 2: {} metrics{}", extra_metrics.size(), source_page ? " + source page (ncu)" : ""));
        std::vector<std::string> metrics = extra_metrics;
        metrics.push_back(kPassCountMetric);
        auto result = counters->collect(metrics, source_page, " stage 2");
        if (!result) report.notes.push_back("counters stage 2 failed (diagnosing from stage 1 only): " + result.error().message);
        else {
            for (auto& data : kernels) {
                if (!data.metrics) continue;
                // Same launches in the same order: match by id, then by name.
                const profile::KernelMetrics* match = nullptr;
                for (const auto& k : result->kernels)
                    if (k.id == data.metrics->id && k.name == data.metrics->name) match = &k;
                for (const auto& k : result->kernels)
                    if (!match && k.name == data.metrics->name) match = &k;
                if (match) merge_metrics(*data.metrics, *match);
                for (const auto& page : result->source_pages)
                    if (short_name(page.kernel_name) == short_name(data.kernel_name) && !data.source) data.source = page;
            }
        }
    }

    // Occupancy for the real launch: the driver's own calculation, which ncu reports as
    // launch__occupancy_limit_* (free metrics), is the reference; our calculator (ptxas resources +
    // ncu's block size and dynamic shared memory) stands in without it and is checked against it.
    // After stage 2, which may have brought the achieved-occupancy counter.
    if (wants(options, "occupancy"))
        for (auto& data : kernels) {
            if (!data.metrics) continue;
            gpu::LaunchConfiguration launch;
            launch.threads_per_block = data.metrics ? parse_block_threads(data.metrics->block) : 0;
            if (launch.threads_per_block <= 0 && data.metrics)
                launch.threads_per_block = static_cast<int>(data.metrics->number("launch__block_size").value_or(0));
            launch.registers_per_thread = data.ptxas ? data.ptxas->registers
                                                     : static_cast<int>(data.metrics->number("launch__registers_per_thread").value_or(0));
            launch.static_shared_memory_bytes = data.ptxas ? data.ptxas->shared_bytes
                                                           : static_cast<long>(data.metrics->number("launch__shared_mem_per_block_static").value_or(0));
            launch.dynamic_shared_memory_bytes = static_cast<long>(data.metrics->number("launch__shared_mem_per_block_dynamic").value_or(0));
            if (launch.threads_per_block <= 0) continue;
            auto occ = gpu::compute_occupancy(ceilings.limits, launch);
            auto from_driver = analysis::occupancy_from_metrics(*data.metrics, ceilings.value);
            if (from_driver && from_driver->source == "driver") {
                data.occupancy = *from_driver;
                if (occ && std::abs(occ->active_warps_per_sm - from_driver->theoretical_warps_per_sm) >= 1.0)
                    report.notes.push_back(fmt::format("occupancy {}: our calculator gives {} warps per SM, the driver {} (using the driver's)",
                                                       short_name(data.kernel_name), occ->active_warps_per_sm,
                                                       from_driver->theoretical_warps_per_sm));
            } else if (occ) {
                data.occupancy = to_analysis_occupancy(*occ, ceilings.limits, launch);
                data.occupancy->source = "calculator";
            } else if (from_driver) {
                data.occupancy = *from_driver;
            }
            if (data.occupancy) {
                if (auto pct = data.metrics->number("sm__warps_active.avg.pct_of_peak_sustained_active"))
                    data.occupancy->achieved_warps_per_sm = *pct / 100.0 * data.occupancy->max_warps_per_sm;
                else if (auto warps = data.metrics->number("sm__warps_active.avg.per_cycle_active"))
                    data.occupancy->achieved_warps_per_sm = *warps;
            }
        }

    for (size_t i = 0; i < kernels.size(); ++i) {
        KernelDiagnosis k;
        if (kernels[i].metrics) {
            auto d = analysis::diagnose(kernels[i], analysis::default_tool_registry(), diag_options);
            if (!d) {
                report.notes.push_back("diagnose " + short_name(kernels[i].kernel_name) + ": " + d.error().message);
                k.diagnosis = diagnose_offline(kernels[i], options);
            } else {
                k.diagnosis = std::move(*d);
                k.roofline_known = true;
            }
        } else {
            auto d = analysis::diagnose(kernels[i], analysis::default_tool_registry(), diag_options);  // timeline only
            k.diagnosis = d ? std::move(*d) : diagnose_offline(kernels[i], options);
        }
        k.stage2_tools = plans[i].tools;
        k.stage2_dropped = plans[i].dropped;
        report.kernels.push_back(std::move(k));
    }
    report.seconds = since(start);
    return report;
}

Result<analysis::Diagnosis> profile_candidate(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options) {
    auto report = profile_candidate_report(task, build, options);
    if (!report) return report.error();
    if (report->kernels.empty())
        return make_error(report->environment_error.empty() ? "profile: no kernel was profiled" : report->environment_error);
    return report->kernels.front().diagnosis;
}

// ---- rendering ----

std::string render_profile_text(const ProfileReport& report) {
    std::ostringstream out;
    out << fmt::format("kernelpro profile: {} ({})\n", report.task, report.candidate);
    out << "ceilings: " << report.ceilings_source << "\n";
    if (!report.environment_error.empty()) out << "note: " << report.environment_error << "\n";
    for (const auto& note : report.notes) out << "note: " << note << "\n";
    for (const auto& k : report.kernels) {
        out << "\n";
        if (k.roofline_known) out << analysis::render_terminal_report(k.diagnosis);
        else {
            out << fmt::format("kernel {} (offline: SASS/ptxas only, no roofline; gains estimated without counters)\n", short_name(k.diagnosis.kernel_name));
            if (k.diagnosis.findings.empty()) out << "  no findings\n";
            for (const auto& f : k.diagnosis.findings) {
                out << fmt::format("  [{}] {} (est. gain {}): {}\n", analysis::to_string(f.severity), f.tool,
                                   analysis::format_percent(f.estimated_gain), f.summary);
                if (!f.guidance.empty()) out << "      -> " << f.guidance << "\n";
            }
        }
        if (!k.stage2_dropped.empty()) {
            out << "  dropped for the budget:";
            for (const auto& t : k.stage2_dropped) out << " " << t;
            out << "\n";
        }
    }
    out << fmt::format("\nprofiling cost: {:.1f} s", report.seconds);
    if (report.cupti_runs > 0) out << fmt::format(", counters in the worker ({} run(s))", report.cupti_runs);
    if (report.ncu_runs > 0) out << fmt::format(", {} ncu run(s)", report.ncu_runs);
    if (report.cupti_runs + report.ncu_runs > 0)
        out << (report.counted_passes > 0 ? fmt::format(", {} replay passes", report.counted_passes)
                                          : fmt::format(", ~{} replay passes (estimated)", report.estimated_passes));
    std::string parts;
    for (const auto& [collector, seconds] : report.collector_seconds) parts += fmt::format("{}{} {:.1f} s", parts.empty() ? "" : ", ", collector, seconds);
    if (!parts.empty()) out << " (" << parts << ")";
    if (!report.cached.empty()) {
        std::string joined;
        for (const auto& c : report.cached) joined += (joined.empty() ? "" : ", ") + c;
        out << "; from the cache: " << joined;
    }
    out << "\n";
    return out.str();
}

nlohmann::json profile_report_json(const ProfileReport& report) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& k : report.kernels) {
        nlohmann::json j = analysis::to_json(k.diagnosis);
        j["roofline_known"] = k.roofline_known;
        j["stage2_tools"] = k.stage2_tools;
        j["stage2_dropped"] = k.stage2_dropped;
        kernels.push_back(std::move(j));
    }
    return {{"schema", "kernelpro.profile/1"},
            {"task", report.task},
            {"candidate", report.candidate},
            {"library", report.library},
            {"ceilings", report.ceilings_source},
            {"environment_error", report.environment_error},
            {"notes", report.notes},
            {"kernels", kernels},
            {"cost", {{"seconds", report.seconds}, {"ncu_runs", report.ncu_runs}, {"cupti_runs", report.cupti_runs},
                      {"estimated_replay_passes", report.estimated_passes},
                      {"replay_passes", report.counted_passes > 0 ? nlohmann::json(report.counted_passes) : nlohmann::json()},
                      {"collector_seconds", report.collector_seconds}, {"cached", report.cached}}},
            {"commands", report.commands}};
}

std::string render_profile_feedback(const ProfileReport& report) {
    std::string out;
    for (const auto& k : report.kernels) out += analysis::render_llm_feedback(k.diagnosis);
    return out;
}

std::string render_tool_list() {
    std::string out;
    for (const analysis::MicroTool* tool : analysis::default_tool_registry().all()) {
        std::string classes;
        for (auto c : tool->classes()) classes += (classes.empty() ? "" : ",") + std::string(analysis::to_string(c));
        auto needs = tool->needs();
        std::vector<std::string> data;
        if (!needs.metrics.empty()) data.push_back(fmt::format("ncu({} metrics)", needs.metrics.size()));
        if (needs.sass) data.push_back("sass");
        if (needs.ptxas) data.push_back("ptxas");
        if (needs.source_page) data.push_back("source-page");
        if (needs.timeline) data.push_back("timeline");
        if (needs.occupancy) data.push_back("occupancy");
        std::string joined;
        for (const auto& d : data) joined += (joined.empty() ? "" : ",") + d;
        out += fmt::format("{:<28} classes={:<55} needs={}\n", tool->name(), classes, joined.empty() ? "-" : joined);
    }
    return out;
}

nlohmann::json tool_list_json() {
    nlohmann::json tools = nlohmann::json::array();
    for (const analysis::MicroTool* tool : analysis::default_tool_registry().all()) {
        nlohmann::json classes = nlohmann::json::array();
        for (auto c : tool->classes()) classes.push_back(analysis::to_string(c));
        auto needs = tool->needs();
        tools.push_back({{"name", tool->name()},
                         {"classes", classes},
                         {"metrics", needs.metrics},
                         {"sass", needs.sass},
                         {"ptxas", needs.ptxas},
                         {"source_page", needs.source_page},
                         {"timeline", needs.timeline},
                         {"occupancy", needs.occupancy}});
    }
    return {{"schema", "kernelpro.tools/1"}, {"stage1_metrics", analysis::roofline_metric_names()}, {"tools", tools}};
}

}  // namespace kp::cli
