#include "diagnose/profile_candidate.h"

#include <algorithm>
#include <future>

#include "analysis/tool_registry.h"
#include "diagnose/profile_steps.h"

namespace kp::diagnose {

ProfileSession::ProfileSession(const TaskSpec& task_, const BuildOutcome& build_, const ProfileOptions& options_)
    : task(task_), build(build_), options(options_),
      cache(options_.cache_directory.empty() ? cache_directory() / "profile" : options_.cache_directory),
      refresh(!options_.use_cache) {
    report.task = task.name;
    report.candidate = build.source_copy.string();
    report.library = build.library.string();
}

void ProfileSession::progress(const std::string& line) const {
    if (options.on_progress) options.on_progress(line);
}

void sort_longest_first(ProfileSession& s) {
    std::stable_sort(s.kernels.begin(), s.kernels.end(), [](const analysis::ProfileData& a, const analysis::ProfileData& b) {
        double da = a.metrics ? a.metrics->number("gpu__time_duration.sum").value_or(0) : 0;
        double db = b.metrics ? b.metrics->number("gpu__time_duration.sum").value_or(0) : 0;
        return da > db;
    });
}

namespace {

analysis::DiagnosisOptions diagnosis_options(const ProfileOptions& options) {
    analysis::DiagnosisOptions d;
    d.only_tools = options.tools;
    d.gate_by_class = options.tools.empty();  // tools picked by name run whatever the class
    return d;
}

// The kernel's diagnosis; when its counters cannot be classified, the offline one (SASS/ptxas).
KernelDiagnosis diagnose_kernel(ProfileSession& s, const analysis::ProfileData& data) {
    KernelDiagnosis k;
    const auto options = diagnosis_options(s.options);
    auto d = analysis::diagnose(data, analysis::default_tool_registry(), options);
    if (d) {
        k.diagnosis = std::move(*d);
        k.roofline_known = data.metrics.has_value();
        return k;
    }
    s.report.notes.push_back("diagnose " + short_kernel_name(data.kernel_name) + ": " + d.error().message);
    analysis::ProfileData offline = data;
    offline.metrics.reset();
    k.diagnosis = *analysis::diagnose(offline, analysis::default_tool_registry(), options);
    return k;
}

ProfileReport offline_report(ProfileSession& s, const std::string& why) {
    s.report.environment_error = why;
    for (const std::string& name : s.entry_kernels) s.report.kernels.push_back(diagnose_kernel(s, kernel_data(s, name)));
    s.report.seconds = s.elapsed();
    return std::move(s.report);
}

Status check_names(const ProfileOptions& options) {
    for (const auto& c : options.collectors)
        if (!all_profile_collectors().count(c)) return make_error("unknown collector '" + c + "' (known: " + known_collector_list() + ")");
    for (const auto& t : options.tools)
        if (!analysis::default_tool_registry().find(t)) return make_error("unknown tool '" + t + "' (see --list-tools)");
    return {};
}

// The GPU steps: counters, the timeline, stage 2, occupancy. An error is why the profile shows the
// offline diagnosis instead.
Status run_gpu_steps(ProfileSession& s) {
    if (auto ready = prepare_gpu_steps(s); !ready) return ready;
    if (s.wants("ncu"))
        if (auto counted = collect_first_counters(s); !counted) return counted;
    collect_timeline(s);
    return {};
}

}  // namespace

void diagnose_kernels(ProfileSession& s) {
    for (size_t i = 0; i < s.kernels.size(); ++i) {
        KernelDiagnosis k = diagnose_kernel(s, s.kernels[i]);
        if (i < s.plans.size()) {
            k.stage2_tools = s.plans[i].tools;
            k.stage2_dropped = s.plans[i].dropped;
        }
        s.report.kernels.push_back(std::move(k));
    }
}

Result<ProfileReport> profile_candidate_report(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options) {
    if (!build.ok()) return make_error("the candidate did not build: " + build.message);
    if (auto names = check_names(options); !names) return names.error();
    ProfileSession s(task, build, options);
    // The CPU-side work overlaps the GPU's: the ceilings (which start the driver) and the SASS
    // (cuobjdump + nvdisasm) run on their own threads while the counters are collected.
    auto ceilings = std::async(std::launch::async, load_session_ceilings, options.ceilings_file);
    start_build_artifacts(s);
    s.ceilings = ceilings.get();
    s.report.ceilings_source = s.ceilings.source;
    find_entry_kernels(s);

    if (!options.ncu_csv.empty())
        if (auto loaded = load_recorded_counters(s); !loaded) return loaded.error();
    const bool need_gpu = options.ncu_csv.empty() && (s.wants("ncu") || s.wants("timeline"));
    if (!need_gpu && s.kernels.empty()) return offline_report(s, "");
    if (need_gpu && !s.ceilings.gpu_present)
        return offline_report(s, s.ceilings.gpu_error + "; counters, the roofline, occupancy with the real launch and "
                                 "the timeline need a GPU: showing the SASS/ptxas findings only");
    if (need_gpu)
        if (auto ran = run_gpu_steps(s); !ran) return offline_report(s, ran.error().message);
    sort_longest_first(s);
    classify_and_collect_stage2(s);
    reconcile_occupancy(s);
    diagnose_kernels(s);
    s.report.seconds = s.elapsed();
    return std::move(s.report);
}

Result<analysis::Diagnosis> profile_candidate(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options) {
    auto report = profile_candidate_report(task, build, options);
    if (!report) return report.error();
    if (report->kernels.empty())
        return make_error(report->environment_error.empty() ? "profile: no kernel was profiled" : report->environment_error);
    return report->kernels.front().diagnosis;
}

}  // namespace kp::diagnose
