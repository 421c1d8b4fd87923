// The profile's data from the build: the SASS of the built library (cuobjdump + nvdisasm, on its
// own thread) and ptxas's resource report from the build log. No GPU.
#include <algorithm>

#include "diagnose/profile_steps.h"
#include "profile/sass_summary.h"

namespace kp::diagnose {

namespace fs = std::filesystem;

namespace {

// Line info names the file nvcc compiled (a scratch copy, renamed into the build cache
// afterwards): show the candidate's own name instead.
void name_source_lines_as_the_candidate(profile::SassFunction& function, const ProfileSession& s) {
    const std::string compiled = s.build.source_copy.filename().string();
    const std::string shown = s.options.source_name.empty() ? s.build.source_copy.string() : s.options.source_name;
    for (auto& instruction : function.instructions)
        if (instruction.location && fs::path(instruction.location->file).filename() == compiled &&
            instruction.location->file.find(s.build.key) != std::string::npos)
            instruction.location->file = shown;
}

}  // namespace

void start_build_artifacts(ProfileSession& s) {
    s.sass_future = std::async(std::launch::async, [&s]() -> SassOutcome {
        if (!s.wants("sass")) return {std::nullopt, 0.0};
        auto t0 = Clock::now();
        profile::SassCollector collector({}, {}, s.cache);
        profile::SassRequest request;
        request.binary = s.build.library;
        request.cache_key = s.build.key;
        request.refresh_cache = s.refresh;
        auto collected = collector.collect(request);
        return {std::move(collected), std::chrono::duration<double>(Clock::now() - t0).count()};
    });
    if (s.wants("sass")) s.progress("sass: disassembling " + s.build.library.filename().string());
    if (s.wants("ptxas")) {
        auto parsed = profile::parse_ptxas_report(s.build.ptxas_report);
        if (parsed && !parsed->functions.empty()) s.ptxas = std::move(*parsed);
        else s.report.notes.push_back("ptxas: no resource report in the build log");
    }
}

void join_sass(ProfileSession& s) {
    if (s.sass_joined) return;
    s.sass_joined = true;
    ChargeTime charge{s.report.collector_seconds["sass wait"]};
    auto [collected, seconds] = s.sass_future.get();
    if (!collected) return;
    s.report.collector_seconds["sass"] = seconds;
    if (!*collected) {
        s.report.notes.push_back("sass: " + collected->error().message);
        return;
    }
    if ((*collected)->from_cache) s.report.cached.push_back("sass");
    s.sass = std::move(**collected);
}

void find_entry_kernels(ProfileSession& s) {
    if (s.ptxas)
        for (const auto& f : s.ptxas->functions)
            if (f.entry && std::find(s.entry_kernels.begin(), s.entry_kernels.end(), f.name) == s.entry_kernels.end())
                s.entry_kernels.push_back(f.name);
    if (!s.entry_kernels.empty()) return;
    join_sass(s);
    if (s.sass)
        for (const auto& cubin : s.sass->cubins)
            for (const auto& f : cubin.program.functions) s.entry_kernels.push_back(f.name);
}

analysis::ProfileData kernel_data(ProfileSession& s, const std::string& kernel_name) {
    join_sass(s);
    analysis::ProfileData data;
    data.kernel_name = kernel_name;
    data.ceilings = s.ceilings.value;
    if (s.task.cost.flops > 0) data.task.min_flops = s.task.cost.flops;
    if (s.task.cost.bytes > 0) data.task.min_bytes = s.task.cost.bytes;
    data.task.precision = gpu::flop_precision_of_task(s.task.cost.precision);
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

}  // namespace kp::diagnose
