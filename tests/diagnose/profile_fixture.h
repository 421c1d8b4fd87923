// Profiles a kernel the way `kernelpro profile` does (load the task, build the candidate, run the
// diagnose library) and returns the report as its JSON, for the pipeline tests.
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "../nvidia_tools_support.h"
#include "../source_tree.h"
#include "build/candidate_builder.h"
#include "diagnose/profile_candidate.h"
#include "gpu/cuda_driver.h"
#include "profile/tool_locator.h"
#include "task/task_spec.h"

namespace kp::testing {

inline const std::string kSource = source_tree().string();
inline const std::string kCorpus = kSource + "/tests/profile_corpus";
inline const std::string kCorpusFixtures = kSource + "/tests/fixtures/h200-corpus/";

inline bool have_nvcc() { return !missing_nvidia_tool({"nvcc"}); }
inline bool have_gpu() { return kp::gpu::CudaDriver::load().ok(); }
inline bool have_sass_tools() { return !missing_nvidia_tool({"nvdisasm", "cuobjdump"}); }

struct Profiled {
    bool ok = false;
    std::string error;     // the library's error, when !ok
    nlohmann::json report; // kernelpro.profile/1
    std::string text, feedback;  // the terminal report and the LLM feedback
};

// Options quiet by default; source_name is the candidate's path, as the command sets it.
inline Profiled profile_kernel(const std::string& task_dir, const std::string& candidate,
                               kp::diagnose::ProfileOptions options = {}) {
    Profiled out;
    auto task = kp::load_task(task_dir);
    if (!task) {
        out.error = task.error().message;
        return out;
    }
    kp::BuilderOptions build_options;
    build_options.arch = kp::detect_gpu_arch();
    kp::CandidateBuilder builder(build_options);
    auto build = builder.build({candidate, {}, task->libraries});
    if (!build || !build->ok()) {
        out.error = build ? build->message : build.error().message;
        return out;
    }
    if (options.source_name.empty()) options.source_name = candidate;
    auto report = kp::diagnose::profile_candidate_report(*task, *build, options);
    if (!report) {
        out.error = report.error().message;
        return out;
    }
    out.ok = true;
    out.report = kp::diagnose::profile_report_json(*report);
    out.text = kp::diagnose::render_profile_text(*report);
    out.feedback = kp::diagnose::render_profile_feedback(*report);
    return out;
}

}  // namespace kp::testing
