// Compiles a candidate .cu into a shared library with nvcc, behind a content-addressed cache, and
// runs the static guard on the result. Compiles of several candidates run in parallel.
#pragma once

#include <chrono>
#include <filesystem>
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
    std::vector<std::string> libraries;  // task-allowed libraries to link (cublas, ...)
    bool apply_guard = true;             // false only for trusted code (task references)
};

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

    bool ok() const { return status == BuildStatus::Ok; }
    nlohmann::json to_json() const;
};

struct BuilderOptions {
    std::filesystem::path cache_directory;  // default: kp::cache_directory()/build
    GpuArch arch;                           // default: sm_90a
    std::chrono::seconds timeout{300};
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
