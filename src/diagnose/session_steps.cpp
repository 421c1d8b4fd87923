#include "diagnose/session_steps.h"

#include <algorithm>
#include <sstream>

#include "analysis/call_profile.h"
#include "analysis/tool_registry.h"
#include "eval/protocol.h"
#include "eval/worker_client.h"
#include "profile/sass_summary.h"
#include "common/files.h"
#include "common/utf8.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> source_lines(const std::filesystem::path& file) {
    std::vector<std::string> lines;
    auto text = read_text_file(file);
    if (!text) return lines;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}


// The cache key of every GPU result of one profile: the binary, the task (its shapes and inputs),
// the GPU with its driver, and the ncu asked for.
std::string profile_cache_key(const BuildOutcome& build, const TaskSpec& task, const std::string& device, const std::string& ncu) {
    return profile::CollectorCache::make_key({"profile/1", build.key, dump_json(to_json(task)), device, ncu});
}

// Line info names the file nvcc compiled (a scratch copy, renamed into the build cache
// afterwards): show the candidate's own name instead.
// The candidate's file as the user named it (the compiled copy's path otherwise).
std::string shown_source_name(const ProfileSession& s) {
    return s.options.source_name.empty() ? s.build.source_copy.string() : s.options.source_name;
}

void name_source_lines_as_the_candidate(profile::SassFunction& function, const ProfileSession& s) {
    const std::string compiled = s.build.source_copy.filename().string();
    const std::string shown = shown_source_name(s);
    for (auto& instruction : function.instructions)
        if (instruction.location && fs::path(instruction.location->file).filename() == compiled &&
            instruction.location->file.find(s.build.key) != std::string::npos)
            instruction.location->file = shown;
}

analysis::DiagnosisOptions diagnosis_options(const ProfileOptions& options) {
    analysis::DiagnosisOptions d;
    d.only_tools = options.tools;
    d.gate_by_class = options.tools.empty();  // tools picked by name run whatever the class
    return d;
}

// The kernel's diagnosis; when its counters cannot be classified, the one without them.
KernelDiagnosis diagnose_kernel(ProfileSession& s, const analysis::ProfileData& data) {
    KernelDiagnosis k;
    k.sass = data.sass;
    k.task = data.task;
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

}  // namespace

Status prepare_gpu(ProfileSession& s) {
    auto worker = find_worker_executable();
    if (!worker) return make_error("kernelpro-worker not found: " + worker.error().message);
    s.worker = *worker;
    auto scratch = ScratchDirectory::create("kp-profile-");
    if (!scratch) return scratch.error();
    s.scratch.emplace(std::move(*scratch));
    s.cache_key = profile_cache_key(s.build, s.task, s.ceilings.device_identity, s.options.ncu_path);
    s.gpu_ready = true;
    return {};
}

void find_entry_kernels(ProfileSession& s) {
    if (s.ptxas)
        for (const auto& f : s.ptxas->functions)
            if (f.entry && std::find(s.entry_kernels.begin(), s.entry_kernels.end(), f.name) == s.entry_kernels.end())
                s.entry_kernels.push_back(f.name);
    if (s.entry_kernels.empty() && s.sass)
        for (const auto& cubin : s.sass->cubins)
            for (const auto& f : cubin.program.functions) s.entry_kernels.push_back(f.name);
}

analysis::ProfileData kernel_data(const ProfileSession& s, const std::string& kernel_name) {
    analysis::ProfileData data;
    data.kernel_name = kernel_name;
    data.ceilings = s.ceilings.value;
    if (s.task.cost.flops > 0) data.task.min_flops = s.task.cost.flops;
    if (s.task.cost.bytes > 0) data.task.min_bytes = s.task.cost.bytes;
    data.task.precision = gpu::flop_precision_of_task(s.task.cost.precision);
    // The candidate's text: for quoting lines, and for what it says it uses (hardware claims).
    data.source_text = source_lines(s.build.source_copy);
    data.source_name = shown_source_name(s);
    if (s.sass)
        if (const profile::SassFunction* f = s.sass->find_function(kernel_name)) {
            data.sass_function = *f;
            name_source_lines_as_the_candidate(*data.sass_function, s);
            data.sass = profile::summarize_sass(*f);
        }
    if (s.ptxas) {
        const profile::PtxasFunction* f = s.ptxas->find(kernel_name);
        if (!f && data.sass_function) f = s.ptxas->find(data.sass_function->name);
        if (f) data.ptxas = *f;
    }
    return data;
}

void assemble_kernels(ProfileSession& s) {
    for (const auto& k : s.first_collection.kernels) {
        auto data = kernel_data(s, k.name);
        data.metrics = k;
        s.kernels.push_back(std::move(data));
    }
}

WorkerRequest profile_request(const ProfileSession& s, int iterations) {
    WorkerRequest request;
    request.mode = "profile_run";
    request.task = to_json(s.task);
    request.candidate_library = s.build.library.string();
    request.launch_gate_library = s.build.launch_gate.string();
    request.seed = 42;
    request.profile_iterations = iterations;
    return request;
}

Result<fs::path> write_profile_request(const WorkerRequest& request, const fs::path& path) {
    if (auto written = write_file_atomically(path, dump_json(to_json(request))); !written) return written.error();
    return path;
}

void attach_source_pages(analysis::ProfileData& data, const profile::NcuResult& result) {
    for (const auto& page : result.source_pages)
        if (short_kernel_name(page.kernel_name) == short_kernel_name(data.kernel_name) && !data.source) data.source = page;
}

void sort_longest_first(ProfileSession& s) {
    std::stable_sort(s.kernels.begin(), s.kernels.end(), [](const analysis::ProfileData& a, const analysis::ProfileData& b) {
        double da = a.metrics ? a.metrics->number("gpu__time_duration.sum").value_or(0) : 0;
        double db = b.metrics ? b.metrics->number("gpu__time_duration.sum").value_or(0) : 0;
        return da > db;
    });
}

namespace {

double launch_seconds(const analysis::ProfileData& data) {
    return data.metrics ? data.metrics->number("gpu__time_duration.sum").value_or(0) * 1e-9 : 0;
}

// The call's launches grouped by kernel and configuration (with the timeline's count of them when
// the counters saw only the first few).
std::vector<analysis::LaunchGroup> launch_groups(const ProfileSession& s) {
    std::vector<analysis::KernelLaunch> launches;
    for (const auto& data : s.kernels)
        launches.push_back({data.kernel_name, data.metrics ? data.metrics->grid : "", data.metrics ? data.metrics->block : "",
                            launch_seconds(data)});
    auto groups = analysis::group_launches(launches);
    for (const auto& data : s.kernels)
        if (data.timeline) {
            analysis::complete_from_timeline(groups, *data.timeline);
            break;
        }
    return groups;
}

}  // namespace

void diagnose_kernels(ProfileSession& s) {
    // Repeated launches of one kernel with one configuration are diagnosed once (the launch of
    // median duration) and counted.
    std::vector<analysis::CallKernel> call_kernels;
    for (const analysis::LaunchGroup& g : launch_groups(s)) {
        const size_t i = g.representative;
        KernelDiagnosis k = diagnose_kernel(s, s.kernels[i]);
        if (i < s.plans.size()) {
            k.stage2_tools = s.plans[i].tools;
            k.stage2_dropped = s.plans[i].dropped;
        }
        k.launches = g.launches;
        k.grid = g.grid;
        k.block = g.block;
        k.call_seconds = g.seconds;
        call_kernels.push_back({k.diagnosis.kernel_name, g.grid, g.block, g.launches, g.seconds, 0});
        s.report.kernels.push_back(std::move(k));
    }
    const bool timed = std::any_of(call_kernels.begin(), call_kernels.end(), [](const auto& k) { return k.seconds > 0; });
    if (!timed) return;
    std::vector<const analysis::Diagnosis*> diagnoses;
    for (const auto& k : s.report.kernels) diagnoses.push_back(&k.diagnosis);
    s.report.call = analysis::profile_call(call_kernels, diagnoses);
    for (auto& k : s.report.kernels) k.call_share = s.report.call->gpu_seconds > 0 ? k.call_seconds / s.report.call->gpu_seconds : 0;
}

ProfileReport offline_report(ProfileSession& s, const std::string& why) {
    s.report.environment_error = why;
    for (const std::string& name : s.entry_kernels) s.report.kernels.push_back(diagnose_kernel(s, kernel_data(s, name)));
    s.report.seconds = s.elapsed();
    return std::move(s.report);
}

}  // namespace kp::diagnose
