// Compiles a candidate .cu into a shared library with nvcc, behind a content-addressed cache, and
// runs the static guard on the result. Compiles of several candidates run in parallel.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "build/gpu_arch.h"
#include "build/static_guard.h"
#include "build/tunables.h"
#include "common/result.h"

namespace kp {

struct BuildRequest {
    std::filesystem::path source;
    ParameterValues parameters;          // tunable values, passed as -D NAME=value
    std::vector<std::string> libraries;  // task-allowed libraries to link (cublas, ...; cutlass: headers)
    bool apply_guard = true;             // false only for trusted code (task references)
    std::optional<std::chrono::seconds> timeout = std::nullopt;  // the task's compile_timeout_s; else BuilderOptions::timeout
};

// The name of the library that carries CUTLASS candidates' cluster launches: it defines
// __wrap_cudaLaunchKernelExC, which checks the launch attributes (eval/launch_gate) before it
// launches. Every cudaLaunchKernelExC call of a CUTLASS candidate is linked to it (ld --wrap).
inline constexpr const char* kLaunchGateLibrary = "libkp_launch_gate.so";

struct TaskSpec;
// A request for one of a task's kernels: the libraries the task allows and its compile time limit.
BuildRequest task_build_request(const TaskSpec& task, std::filesystem::path source, ParameterValues parameters = {},
                                bool apply_guard = true);

enum class BuildStatus { Ok, CompileError, RejectedByGuard };
const char* build_status_name(BuildStatus status);

struct BuildOutcome {
    BuildStatus status = BuildStatus::CompileError;
    std::filesystem::path library;    // the built .so (in the cache)
    std::filesystem::path source_copy;  // the exact source compiled (line info points here)
    std::string key;                  // cache key: source, flags, toolchain, ABI
    std::string message;              // trimmed compile errors, or the guard's verdict
    std::string full_log;             // everything nvcc printed
    std::string ptxas_report;         // the -Xptxas -v resource report
    GuardReport guard;
    double compile_seconds = 0.0;     // of the original compile (0 never; cached entries keep theirs)
    bool cache_hit = false;
    std::string command_line;
    std::string arch;
    std::filesystem::path launch_gate;  // CUTLASS candidates: the libkp_launch_gate.so they link

    bool ok() const { return status == BuildStatus::Ok; }
    nlohmann::json to_json() const;
};

struct BuilderOptions {
    std::filesystem::path cache_directory;  // default: kp::cache_directory()/build
    GpuArch arch;                           // default: sm_90a
    std::chrono::seconds timeout{300};       // per compile, unless the request sets its own
    std::filesystem::path include_directory;  // holds kernelpro/abi.h; default: from locate_abi_header()
    bool use_cache = true;
};

class CandidateBuilder {
public:
    explicit CandidateBuilder(BuilderOptions options = {});

    // Fails (as an Error) only when the build cannot be attempted (no nvcc, unreadable source);
    // compile errors and guard rejections are outcomes.
    Result<BuildOutcome> build(const BuildRequest& request);
    std::vector<Result<BuildOutcome>> build_many(const std::vector<BuildRequest>& requests, int parallelism = 0);

    // `nvcc --version`, part of every cache key.
    const std::string& toolchain_version();
    const BuilderOptions& options() const { return options_; }

private:
    Result<BuildOutcome> build_entry(const BuildRequest& request);  // as cached: cites candidate.cu

    BuilderOptions options_;
    std::string toolchain_version_;
};

}  // namespace kp
