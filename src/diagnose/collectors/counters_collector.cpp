// "ncu": the hardware counters of every kernel launch of one call, counted by the worker through
// CUPTI's range profiler or by ncu (CounterCollection), or replayed from a CSV ncu recorded
// (--ncu-csv). The first collection holds the roofline's counters and, when they fit the budget,
// every tool's; otherwise, once the roofline classes are known, a second collection gets the
// counters of each class's tools, or of the tools a profiling tree's leaf takes (within the budget
// left), merged by launch.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/roofline.h"
#include "analysis/tool_registry.h"
#include "diagnose/collector.h"
#include "diagnose/session_steps.h"
#include "profile/cupti_counter_collector.h"
#include "profile/ncu_collector.h"
#include "profile/ncu_csv.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

namespace {

std::vector<const analysis::MicroTool*> tools_named(const std::vector<std::string>& names) {
    std::vector<const analysis::MicroTool*> tools;
    for (const auto& name : names)
        if (const auto* tool = analysis::default_tool_registry().find(name)) tools.push_back(tool);
    return tools;
}

std::vector<const analysis::MicroTool*> tools_for(const ProfileOptions& options) {
    return options.tools.empty() ? analysis::default_tool_registry().all() : tools_named(options.tools);
}

// What stage 2 serves for one kernel: the chooser's (a tree's leaf), else the class's tools (or the named ones).
Stage2Choice choice_for(const ProfileOptions& options, const analysis::ProfileData& kernel, const analysis::RooflineResult& roofline) {
    if (options.stage2_choice) return options.stage2_choice(kernel, roofline);
    Stage2Choice choice;
    for (const auto* tool : options.tools.empty() ? analysis::default_tool_registry().for_class(roofline.kind) : tools_for(options))
        choice.tools.emplace_back(tool->name());
    return choice;
}

// A worker's counters reply (--keep-counters), with the traced call's timeline when it holds one.
Status load_recorded_reply(ProfileSession& s, const std::string& text) {
    const fs::path& file = s.options.ncu_csv;
    auto reply = nlohmann::json::parse(text, nullptr, false);
    if (reply.is_discarded()) return make_error(file.string() + ": not JSON (a counters reply from --keep-counters, or an ncu CSV)");
    Result<profile::CounterResult> result = make_error("");
    try {  // a file written by hand may lack what a reply always has
        result = profile::counter_result_from_reply(reply, s.ceilings.limits);
    } catch (const nlohmann::json::exception& e) {
        return make_error(file.string() + ": not a counters reply (" + e.what() + ")");
    }
    if (!result) return make_error(file.string() + ": " + result.error().message);
    if (result->kernels.empty()) return make_error(file.string() + ": no kernel in it");
    s.first_collection.kernels = std::move(result->kernels);
    for (const auto& note : result->notes) s.report.notes.push_back(note);
    if (result->timeline) {
        s.call_timeline = std::move(*result->timeline);
        s.call_timeline_calls = std::max(1, result->traced_calls);
    }
    if (result->pc_sampling) s.pc_sampling = std::move(result->pc_sampling);
    s.report.notes.push_back("counters from " + file.string() + " (a worker's reply, not measured now; " +
                             std::to_string(result->passes) + " replay passes when recorded)");
    s.all_tools_counted = true;
    return {};
}

Status load_recorded(ProfileSession& s) {
    const fs::path& csv = s.options.ncu_csv;
    auto text = read_text_file(csv);
    if (!text) return make_error("cannot read the ncu CSV: " + text.error().message);
    // A JSON object is a worker's reply; anything else ncu's CSV.
    if (const auto first = text->find_first_not_of(" \t\r\n"); first != std::string::npos && (*text)[first] == '{')
        return load_recorded_reply(s, *text);
    auto parsed = profile::parse_ncu_csv(*text);
    if (!parsed) return make_error(csv.string() + ": " + parsed.error().message);
    if (parsed->empty()) return make_error(csv.string() + ": no kernel in it");
    s.first_collection.kernels = std::move(*parsed);
    s.report.notes.push_back("counters from " + csv.string() + " (not measured now; " +
                             std::to_string(profile::counted_replay_passes(s.first_collection.kernels)) +
                             " replay passes when recorded)");
    s.all_tools_counted = true;
    return {};
}

Status open_collection(ProfileSession& s) {
    // The request is written even when the worker collects the counters itself, so that ncu (a
    // fallback, stage 2's source page, scripts/gpu-profile-check's `--set full`) can run the same call.
    const fs::path& kept = s.options.request_file;
    if (!kept.empty()) fs::create_directories(fs::absolute(kept).parent_path());
    WorkerRequest request = profile_request(s, 1);
    auto written = write_profile_request(request, kept.empty() ? s.scratch->path() / "request1.json" : fs::absolute(kept));
    if (!written) return written.error();
    CounterTarget target{s.worker, std::move(request), *written, s.cache_key, s.refresh, s.ceilings.limits,
                         s.plan.trace_the_call ? 1 : 0, s.plan.sample_pcs};
    auto opened = CounterCollection::open(s.options, std::move(target), s.cache, s.scratch->path(), s.report);
    if (!opened) return opened.error();
    s.counters.emplace(std::move(*opened));
    return {};
}

Status collect_first(ProfileSession& s) {
    if (auto opened = open_collection(s); !opened) return opened;
    analysis::PlanBudget budget{s.options.budget_passes, s.options.budget_seconds};
    // With a chooser, stage 2 must wait for it: the first collection is the roofline's alone, and the
    // call's trace and PC samples wait for stage 2 too, which takes them when a kernel's choice does.
    const auto stages = s.options.stage2_choice ? analysis::StagePlan::two_runs : s.options.stages;
    auto first = analysis::plan_first_collection(tools_for(s.options), stages, budget, s.plan.source_page_allowed);
    s.stage1_metrics = first.roofline_metrics;
    if (first.all_tools) {
        s.one_run_plan = first.tools_plan;
        s.all_tools_counted = true;
    }
    const bool in_worker = s.counters->in_worker(first.source_page);
    if (s.options.stage2_choice && in_worker) {
        s.call_data_later = true;
        s.counters->leave_call_data_to_follow_up();
    }
    s.progress(fmt::format("{}: {} metrics{}{}", in_worker ? "counters (CUPTI, in the worker)" : "ncu",
                           first.metrics.size(), first.source_page ? " + source page" : "",
                           s.all_tools_counted ? " (roofline and every tool, one run)" : " (stage 1: roofline)"));
    // A second collection follows unless every tool's counters are in the first: the worker stays for it.
    auto result = s.counters->collect(first.metrics, first.source_page, "", !s.all_tools_counted);
    if (!result) return make_error("counters failed: " + result.error().message);
    s.first_collection = std::move(*result);
    if (auto traced = s.counters->take_call_timeline()) {
        s.call_timeline = std::move(traced->first);
        s.call_timeline_calls = std::max(1, traced->second);
    }
    s.pc_sampling = s.counters->take_pc_sampling();
    return {};
}

// The class's share of a one-run plan, or a stage-2 plan within the budget left.
analysis::ProfilingPlan plan_for(const ProfileSession& s, const std::vector<const analysis::MicroTool*>& tools,
                                 const analysis::RooflineResult& roofline) {
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
    inputs.source_page_allowed = s.plan.source_page_allowed;
    return analysis::plan_profiling(roofline.kind, tools, budget, inputs);
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
        if (match)
            for (const auto& [name, value] : match->metrics) data.metrics->metrics.insert_or_assign(name, value);
        attach_source_pages(data, result);
    }
}

// Classifies each counted kernel and plans its tools (its class's, or the chooser's); then one
// more collection, in the worker that counted the first when it stayed, for the counters (and the
// source page) the plans add to the first collection's, and for the call's trace and PC samples
// when the first left them to it and a kernel's choice takes them.
void collect_stage2(ProfileSession& s) {
    s.plans.assign(s.kernels.size(), {});
    std::vector<std::string> extra_metrics;
    bool source_page = false;
    FollowUp extra;
    for (size_t i = 0; i < s.kernels.size(); ++i) {
        if (!s.kernels[i].metrics) continue;
        extra.call_seconds += s.kernels[i].metrics->number("gpu__time_duration.sum").value_or(0) * 1e-9;
        auto roofline = analysis::classify_roofline(s.kernels[i]);
        if (!roofline) {
            s.report.notes.push_back("roofline " + short_kernel_name(s.kernels[i].kernel_name) + ": " + roofline.error().message);
            continue;
        }
        const Stage2Choice choice = choice_for(s.options, s.kernels[i], *roofline);
        s.plans[i] = plan_for(s, tools_named(choice.tools), *roofline);
        extra.sample_pcs = extra.sample_pcs || choice.sample_pcs;
        extra.trace_calls = (extra.trace_calls > 0 || s.plans[i].timeline) ? 1 : 0;
        if (s.all_tools_counted) continue;
        for (const auto& m : s.plans[i].metrics)
            if (std::find(s.stage1_metrics.begin(), s.stage1_metrics.end(), m) == s.stage1_metrics.end() &&
                std::find(extra_metrics.begin(), extra_metrics.end(), m) == extra_metrics.end())
                extra_metrics.push_back(m);
        source_page = source_page || s.plans[i].source_page;
    }
    if (!s.counters) return;
    // Only what the first collection left: the call's data when it did, and only what the plan collects.
    extra.sample_pcs = s.call_data_later && s.plan.sample_pcs && extra.sample_pcs;
    extra.trace_calls = s.call_data_later && s.plan.trace_the_call ? extra.trace_calls : 0;
    s.stage2_traces = extra.trace_calls > 0;
    if (extra_metrics.empty() && !source_page && !extra.sample_pcs && extra.trace_calls == 0) {
        s.counters->close();  // nothing more to count: the worker that stayed ends
        return;
    }
    s.progress(fmt::format("counters stage 2: {} metrics{}{}{}", extra_metrics.size(), source_page ? " + source page (ncu)" : "",
                           extra.sample_pcs ? " + PC sampling" : "", extra.trace_calls > 0 ? " + trace" : ""));
    if (!extra_metrics.empty()) extra_metrics.push_back(profile::kReplayPassesMetric);
    // Each collection's counters are merged as they come; the first failure ends stage 2.
    std::string failure;
    auto merge = [&](Result<profile::NcuResult> collected) {
        if (collected) merge_stage2(s.kernels, *collected);
        else failure = collected.error().message;
    };
    if (source_page) {  // ncu counts it; the call's data, if any, then from a worker of its own
        merge(s.counters->collect(extra_metrics, true, " stage 2"));
        extra_metrics.clear();
    }
    if (failure.empty() && (!extra_metrics.empty() || extra.sample_pcs || extra.trace_calls > 0))
        merge(s.counters->collect_follow_up(extra_metrics, extra, " stage 2"));
    s.counters->close();
    if (!failure.empty()) s.report.notes.push_back("counters stage 2 failed (diagnosing from stage 1 only): " + failure);
    if (auto traced = s.counters->take_call_timeline()) {
        s.call_timeline = std::move(traced->first);
        s.call_timeline_calls = std::max(1, traced->second);
    }
    if (auto samples = s.counters->take_pc_sampling()) s.pc_sampling = std::move(samples);
}

class CountersCollector final : public Collector {
public:
    std::string_view name() const override { return "ncu"; }
    std::string_view provides() const override {
        return "hardware counters of every kernel launch of one call (the roofline's and the tools'), counted by the worker "
               "through CUPTI or by ncu";
    }
    std::vector<CollectorStage> stages() const override { return {CollectorStage::counters, CollectorStage::refine}; }
    bool needs_gpu() const override { return true; }
    profile::CollectorCost declared_cost() const override {
        return {profile::estimate_ncu_replay_passes(analysis::roofline_metric_names(), {}, false), 2.0};
    }
    void configure(CollectionPlan& plan) const override { plan.counters = true; }

    Status collect(CollectorStage stage, ProfileSession& s) const override {
        if (stage == CollectorStage::refine) {
            collect_stage2(s);
            return {};
        }
        if (s.recorded()) return load_recorded(s);
        return s.gpu_ready ? collect_first(s) : Status{};
    }
};

}  // namespace

std::unique_ptr<Collector> make_counters_collector() { return std::make_unique<CountersCollector>(); }

}  // namespace kp::diagnose
