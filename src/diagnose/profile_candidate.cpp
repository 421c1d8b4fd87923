#include "diagnose/profile_candidate.h"

#include <algorithm>
#include <future>

#include "analysis/tool_registry.h"
#include "diagnose/session_steps.h"

namespace kp::diagnose {

ProfileSession::ProfileSession(const TaskSpec& task_, const BuildOutcome& build_, const ProfileOptions& options_,
                               std::vector<const Collector*> collectors_)
    : task(task_), build(build_), options(options_), collectors(std::move(collectors_)),
      cache(options_.cache_directory.empty() ? cache_directory() / "profile" : options_.cache_directory),
      refresh(!options_.use_cache) {
    report.task = task.name;
    report.candidate = build.source_copy.string();
    report.library = build.library.string();
    for (const Collector* c : collectors) c->configure(plan);
}

void ProfileSession::progress(const std::string& line) const {
    if (options.on_progress) options.on_progress(line);
}

namespace {

Result<std::vector<const Collector*>> enabled_collectors(const ProfileOptions& options, const CollectorRegistry& registry) {
    for (const auto& name : options.collectors)
        if (!registry.find(name)) return make_error("unknown collector '" + name + "' (known: " + registry.name_list() + ")");
    for (const auto& t : options.tools)
        if (!analysis::default_tool_registry().find(t)) return make_error("unknown tool '" + t + "' (see --list-tools)");
    std::vector<const Collector*> enabled;
    for (const Collector* c : registry.all())
        if (options.collectors.count(std::string(c->name()))) enabled.push_back(c);
    return enabled;
}

// Every enabled collector that takes part in `stage`, in registration order; the first error.
Status run_stage(ProfileSession& s, CollectorStage stage) {
    for (const Collector* c : s.collectors) {
        const auto stages = c->stages();
        if (std::find(stages.begin(), stages.end(), stage) == stages.end()) continue;
        if (auto done = c->collect(stage, s); !done) return done;
    }
    return {};
}

// The same for the stages the profile goes on after whatever happens: an error is a note.
void run_stage_noting(ProfileSession& s, CollectorStage stage) {
    if (auto done = run_stage(s, stage); !done) s.report.notes.push_back(std::string(to_string(stage)) + ": " + done.error().message);
}

bool needs_gpu(const ProfileSession& s) {
    if (s.recorded()) return false;  // the counters come from the recorded CSV: no GPU step runs
    return std::any_of(s.collectors.begin(), s.collectors.end(), [](const Collector* c) { return c->needs_gpu(); });
}

// Why the GPU steps cannot run (no GPU, no worker), or "" once they are ready.
std::string prepare_the_gpu(ProfileSession& s) {
    if (!s.ceilings.gpu_present)
        return s.ceilings.gpu_error + "; counters, the roofline, occupancy with the real launch and the timeline need a GPU: "
                                      "showing the SASS/ptxas findings only";
    auto ready = prepare_gpu(s);
    return ready ? "" : ready.error().message;
}

}  // namespace

Result<ProfileReport> profile_candidate_report(const TaskSpec& task, const BuildOutcome& build, const ProfileOptions& options,
                                               const CollectorRegistry& registry) {
    if (!build.ok()) return make_error("the candidate did not build: " + build.message);
    auto collectors = enabled_collectors(options, registry);
    if (!collectors) return collectors.error();
    ProfileSession s(task, build, options, std::move(*collectors));
    // The CPU-side work overlaps the GPU's: the ceilings (which start the driver) and the SASS
    // (cuobjdump + nvdisasm) run on their own threads while the counters are collected.
    auto ceilings = std::async(std::launch::async, load_session_ceilings, options.ceilings_file);
    for (const Collector* c : s.collectors) c->start(s);
    s.ceilings = ceilings.get();
    s.report.ceilings_source = s.ceilings.source;

    const bool gpu = needs_gpu(s);
    std::string offline = gpu ? prepare_the_gpu(s) : "";
    if (offline.empty() && (gpu || s.recorded()))
        if (auto counted = run_stage(s, CollectorStage::counters); !counted) {
            if (s.recorded()) return counted.error();  // an unreadable recording is the caller's mistake
            offline = counted.error().message;
        }
    run_stage_noting(s, CollectorStage::build);
    find_entry_kernels(s);
    if (!offline.empty()) return offline_report(s, offline);
    assemble_kernels(s);
    run_stage_noting(s, CollectorStage::kernels);
    run_stage_noting(s, CollectorStage::call);
    if (!gpu && s.kernels.empty()) return offline_report(s, "");
    sort_longest_first(s);
    run_stage_noting(s, CollectorStage::refine);
    run_stage_noting(s, CollectorStage::reconcile);
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
