// The profile's hardware counters: recorded ones (--ncu-csv), or one or two collections in the
// worker (CUPTI) or by ncu, and the stage-2 plan by roofline class in between.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/roofline.h"
#include "analysis/tool_registry.h"
#include "diagnose/profile_steps.h"
#include "eval/protocol.h"
#include "eval/worker_client.h"
#include "profile/ncu_csv.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

namespace {

// The cache key of every GPU result of one profile: the binary, the task (its shapes and inputs),
// the GPU with its driver, and the ncu asked for.
std::string profile_cache_key(const BuildOutcome& build, const TaskSpec& task, const std::string& device, const std::string& ncu) {
    return profile::CollectorCache::make_key({"profile/1", build.key, to_json(task).dump(), device, ncu});
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

void attach_source_pages(analysis::ProfileData& data, const profile::NcuResult& result) {
    for (const auto& page : result.source_pages)
        if (short_kernel_name(page.kernel_name) == short_kernel_name(data.kernel_name) && !data.source) data.source = page;
}

void merge_metrics(profile::KernelMetrics& into, const profile::KernelMetrics& from) {
    for (const auto& [name, value] : from.metrics) into.metrics.insert_or_assign(name, value);
}

// Stage 2's result, merged into the kernels: the same launches in the same order, matched by id,
// then by name.
void merge_stage2(std::vector<analysis::ProfileData>& kernels, const profile::NcuResult& result) {
    for (auto& data : kernels) {
        if (!data.metrics) continue;
        const profile::KernelMetrics* match = nullptr;
        for (const auto& k : result.kernels)
            if (k.id == data.metrics->id && k.name == data.metrics->name) match = &k;
        for (const auto& k : result.kernels)
            if (!match && k.name == data.metrics->name) match = &k;
        if (match) merge_metrics(*data.metrics, *match);
        attach_source_pages(data, result);
    }
}

std::vector<const analysis::MicroTool*> tools_for(const ProfileOptions& options, analysis::RooflineClass kind) {
    if (options.tools.empty()) return analysis::default_tool_registry().for_class(kind);
    std::vector<const analysis::MicroTool*> tools;
    for (const auto& name : options.tools) tools.push_back(analysis::default_tool_registry().find(name));
    return tools;
}

}  // namespace

Status load_recorded_counters(ProfileSession& s) {
    const fs::path& csv = s.options.ncu_csv;
    auto text = read_text_file(csv);
    if (!text) return make_error("cannot read the ncu CSV: " + text.error().message);
    auto parsed = profile::parse_ncu_csv(*text);
    if (!parsed) return make_error(csv.string() + ": " + parsed.error().message);
    if (parsed->empty()) return make_error(csv.string() + ": no kernel in it");
    for (const auto& k : *parsed) {
        auto data = kernel_data(s, k.name);
        data.metrics = k;
        s.kernels.push_back(std::move(data));
    }
    s.report.notes.push_back("counters from " + csv.string() + " (not measured now; " +
                             std::to_string(profile::counted_replay_passes(*parsed)) + " replay passes when recorded)");
    s.all_tools_counted = true;
    return {};
}

Status prepare_gpu_steps(ProfileSession& s) {
    auto worker = find_worker_executable();
    if (!worker) return make_error("kernelpro-worker not found: " + worker.error().message);
    s.worker = *worker;
    auto scratch = ScratchDirectory::create("kp-profile-");
    if (!scratch) return scratch.error();
    s.scratch.emplace(std::move(*scratch));
    s.cache_key = profile_cache_key(s.build, s.task, s.ceilings.device_identity, s.options.ncu_path);
    if (s.options.tools.empty()) s.candidate_tools = analysis::default_tool_registry().all();
    else
        for (const auto& name : s.options.tools) s.candidate_tools.push_back(analysis::default_tool_registry().find(name));
    return {};
}

Result<fs::path> write_profile_request(const ProfileSession& s, int iterations, const fs::path& path) {
    if (auto written = write_file_atomically(path, to_json(profile_request(s.task, s.build, iterations)).dump()); !written)
        return written.error();
    return path;
}

Status collect_first_counters(ProfileSession& s) {
    // The request is written even when the worker collects the counters itself, so that ncu (a
    // fallback, stage 2's source page, scripts/gpu-profile-check's `--set full`) can run the same call.
    CounterTarget target{s.worker, profile_request(s.task, s.build, 1), {}, s.cache_key, s.refresh, s.ceilings.limits};
    const fs::path& kept = s.options.request_file;
    if (!kept.empty()) fs::create_directories(fs::absolute(kept).parent_path());
    auto written = write_profile_request(s, 1, kept.empty() ? s.scratch->path() / "request1.json" : fs::absolute(kept));
    if (!written) return written.error();
    target.request_file = *written;
    auto opened = CounterCollection::open(s.options, std::move(target), s.cache, s.scratch->path(), s.report);
    if (!opened) return opened.error();
    s.counters.emplace(std::move(*opened));

    analysis::PlanBudget budget{s.options.budget_passes, s.options.budget_seconds};
    auto first = analysis::plan_first_collection(s.candidate_tools, s.options.stages, budget, s.wants("source"));
    s.stage1_metrics = first.roofline_metrics;
    if (first.all_tools) {
        s.one_run_plan = first.tools_plan;
        s.all_tools_counted = true;
    }
    s.progress(fmt::format("{}: {} metrics{}{}", s.counters->in_worker(first.source_page) ? "counters (CUPTI, in the worker)" : "ncu",
                           first.metrics.size(), first.source_page ? " + source page" : "",
                           s.all_tools_counted ? " (roofline and every tool, one run)" : " (stage 1: roofline)"));
    auto result = s.counters->collect(first.metrics, first.source_page);
    if (!result) return make_error("counters failed: " + result.error().message);
    for (const auto& k : result->kernels) {
        auto data = kernel_data(s, k.name);
        data.metrics = k;
        attach_source_pages(data, *result);
        s.kernels.push_back(std::move(data));
    }
    return {};
}

namespace {

// The class's share of a one-run plan, or a stage-2 plan within the budget left.
analysis::ProfilingPlan plan_for(ProfileSession& s, const analysis::RooflineResult& roofline) {
    auto tools = tools_for(s.options, roofline.kind);
    if (s.all_tools_counted) {
        analysis::ProfilingPlan plan = s.one_run_plan;
        plan.kind = roofline.kind;
        std::erase_if(plan.tools, [&](const std::string& name) {
            return std::none_of(tools.begin(), tools.end(), [&](const analysis::MicroTool* t) { return t->name() == name; });
        });
        return plan;
    }
    analysis::PlanBudget budget;
    budget.max_replay_passes = std::max(0, s.options.budget_passes - s.report.estimated_passes);
    budget.max_seconds = std::max(0.0, s.options.budget_seconds - s.elapsed());
    analysis::PlanInputs inputs;
    inputs.kernel_seconds = std::max(1e-6, roofline.duration_seconds);
    inputs.sass_cached = true;
    inputs.source_page_allowed = s.wants("source");
    return analysis::plan_profiling(roofline.kind, tools, budget, inputs);
}

}  // namespace

void classify_and_collect_stage2(ProfileSession& s) {
    s.plans.assign(s.kernels.size(), {});
    std::vector<std::string> extra_metrics;
    bool source_page = false;
    for (size_t i = 0; i < s.kernels.size(); ++i) {
        if (!s.kernels[i].metrics) continue;
        auto roofline = analysis::classify_roofline(s.kernels[i]);
        if (!roofline) {
            s.report.notes.push_back("roofline " + short_kernel_name(s.kernels[i].kernel_name) + ": " + roofline.error().message);
            continue;
        }
        s.plans[i] = plan_for(s, *roofline);
        if (s.all_tools_counted) continue;
        for (const auto& m : s.plans[i].metrics)
            if (std::find(s.stage1_metrics.begin(), s.stage1_metrics.end(), m) == s.stage1_metrics.end() &&
                std::find(extra_metrics.begin(), extra_metrics.end(), m) == extra_metrics.end())
                extra_metrics.push_back(m);
        source_page = source_page || s.plans[i].source_page;
    }
    if (!s.counters || (extra_metrics.empty() && !source_page)) return;
    s.progress(fmt::format("counters stage 2: {} metrics{}", extra_metrics.size(), source_page ? " + source page (ncu)" : ""));
    extra_metrics.push_back(profile::kReplayPassesMetric);
    auto result = s.counters->collect(extra_metrics, source_page, " stage 2");
    if (!result) s.report.notes.push_back("counters stage 2 failed (diagnosing from stage 1 only): " + result.error().message);
    else merge_stage2(s.kernels, *result);
}

}  // namespace kp::diagnose
