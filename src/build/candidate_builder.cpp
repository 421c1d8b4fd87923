#include "build/candidate_builder.h"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "build/compile_log.h"
#include "build/cutlass_install.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/process.h"
#include "common/resource_locator.h"
#include "common/tool_locator.h"
#include "common/utf8.h"
#include "task/task_spec.h"

namespace kp {

namespace fs = std::filesystem;

namespace {
// Bump when the compile flags or the guard change meaning, so old cache entries are not reused.
constexpr const char* kBuildRecipeVersion = "kp-build-4";  // 4: cutlass (headers, launch gate)
}

BuildRequest task_build_request(const TaskSpec& task, fs::path source, ParameterValues parameters, bool apply_guard) {
    BuildRequest request{std::move(source), std::move(parameters), task.libraries, apply_guard};
    if (task.compile_timeout_seconds) request.timeout = std::chrono::seconds(*task.compile_timeout_seconds);
    return request;
}

const char* build_status_name(BuildStatus status) {
    switch (status) {
        case BuildStatus::Ok: return "ok";
        case BuildStatus::CompileError: return "compile_error";
        case BuildStatus::RejectedByGuard: return "rejected_by_guard";
    }
    return "?";
}

nlohmann::json BuildOutcome::to_json() const {
    nlohmann::json violations = nlohmann::json::array();
    for (const auto& v : guard.violations) violations.push_back({{"symbol", v.symbol}, {"reason", v.reason}});
    return {{"status", build_status_name(status)}, {"library", path_text(library)}, {"source", path_text(source_copy)},
            {"key", key}, {"message", message}, {"full_log", full_log}, {"ptxas_report", ptxas_report},
            {"guard_violations", violations}, {"exports_forward", guard.exports_forward},
            {"compile_seconds", compile_seconds}, {"cache_hit", cache_hit}, {"command_line", valid_utf8(command_line)},
            {"arch", arch}, {"launch_gate", path_text(launch_gate)}};
}

namespace {

BuildOutcome outcome_from_json(const nlohmann::json& j) {
    BuildOutcome o;
    std::string status = j.value("status", "compile_error");
    o.status = status == "ok" ? BuildStatus::Ok : status == "rejected_by_guard" ? BuildStatus::RejectedByGuard : BuildStatus::CompileError;
    o.library = j.value("library", "");
    o.source_copy = j.value("source", "");
    o.key = j.value("key", "");
    o.message = j.value("message", "");
    o.full_log = j.value("full_log", "");
    o.ptxas_report = j.value("ptxas_report", "");
    for (const auto& v : j.value("guard_violations", nlohmann::json::array()))
        o.guard.violations.push_back({v.value("symbol", ""), v.value("reason", "")});
    o.guard.exports_forward = j.value("exports_forward", false);
    o.compile_seconds = j.value("compile_seconds", 0.0);
    o.command_line = j.value("command_line", "");
    o.arch = j.value("arch", "");
    o.launch_gate = j.value("launch_gate", "");
    return o;
}

std::string library_flag(const std::string& name) {
    for (const auto& [lib, flag] : allowed_libraries())
        if (lib == name) return flag;
    return "";
}

// What a CUTLASS candidate adds to the command line: the headers' flags, its arch-specific target
// (WGMMA and TMA exist only in sm_90a's instruction set), and its cluster launches routed through
// the launch gate, which the worker loads before the candidate.
Status add_cutlass_flags(std::vector<std::string>& flags, GpuArch& arch, std::string& recipe, fs::path& launch_gate) {
    auto install = locate_cutlass();
    if (!install.ok()) return install.error();
    auto gate = locate_helper(kLaunchGateLibrary);
    if (!gate.ok()) return make_error(gate.error().message + " (CUTLASS candidates link it for their cluster launches)");
    arch = arch_specific(arch);
    for (auto& f : cutlass_nvcc_flags(*install)) flags.push_back(std::move(f));
    for (const std::string& f : {std::string("-Xlinker"), std::string("--wrap=cudaLaunchKernelExC"),
                                 "-L" + gate->parent_path().string(), std::string("-lkp_launch_gate")})
        flags.push_back(f);
    recipe = "cutlass " + install->version + " at " + install->root.string();
    launch_gate = *gate;
    return {};
}

}  // namespace

CandidateBuilder::CandidateBuilder(BuilderOptions options) : options_(std::move(options)) {
    if (options_.cache_directory.empty()) options_.cache_directory = cache_directory() / "build";
    if (options_.include_directory.empty())
        if (auto abi = locate_abi_header()) options_.include_directory = abi->parent_path().parent_path();
}

const std::string& CandidateBuilder::toolchain_version() {
    if (toolchain_version_.empty()) {
        auto nvcc = locate_nvidia_tool("nvcc");
        auto r = run_process({nvcc.value_or("nvcc"), "--version"});
        toolchain_version_ = r.ok() && r->succeeded() ? r->stdout_text : "nvcc-missing";
    }
    return toolchain_version_;
}

Result<BuildOutcome> CandidateBuilder::build(const BuildRequest& request) {
    auto outcome = build_entry(request);
    if (!outcome.ok()) return outcome;
    // The cache compiles a copy named candidate.cu; the user fixes their own file.
    std::string user_file = path_text(request.source);
    outcome->message = cite_source_file(outcome->message, user_file);
    outcome->full_log = cite_source_file(outcome->full_log, user_file);
    return outcome;
}

Result<BuildOutcome> CandidateBuilder::build_entry(const BuildRequest& request) {
    auto source = read_text_file(request.source);
    if (!source.ok()) return source.error();
    auto nvcc = require_nvidia_tool("nvcc");  // the locator doctor reports with
    if (!nvcc.ok()) return make_error(nvcc.error().message + ": install the CUDA toolkit or add its bin/ to PATH");
    if (options_.include_directory.empty()) return locate_abi_header().error();
    auto abi_header = read_text_file(options_.include_directory / "kernelpro" / "abi.h");
    if (!abi_header.ok()) return make_error("kernelpro/abi.h not found under " + options_.include_directory.string());

    std::vector<std::string> flags{"-shared", "-Xcompiler", "-fPIC", "-O3", "-lineinfo", "-std=c++17", "-cudart", "shared",
                                   "-Xptxas", "-v"};
    std::vector<std::string> library_flags;
    GpuArch arch = options_.arch;
    std::string cutlass_recipe;
    fs::path launch_gate;
    for (const auto& lib : request.libraries) {
        if (lib == "cutlass") {
            if (auto added = add_cutlass_flags(library_flags, arch, cutlass_recipe, launch_gate); !added.ok()) return added.error();
            continue;
        }
        std::string flag = library_flag(lib);
        if (flag.empty()) return make_error("unknown library '" + lib + "'");
        library_flags.push_back(flag);
    }
    for (const auto& f : arch.nvcc_flags()) flags.push_back(f);
    for (const auto& f : define_flags(request.parameters)) flags.push_back(f);
    flags.insert(flags.end(), library_flags.begin(), library_flags.end());

    Sha256 hasher;
    hasher.add(kBuildRecipeVersion).add(*source).add(*abi_header).add(toolchain_version()).add(cutlass_recipe);
    for (const auto& f : flags) hasher.add(f);
    hasher.add(request.apply_guard ? "guard:" + guard_policy_fingerprint() : "trusted");
    std::string key = hasher.hex();
    fs::path entry = options_.cache_directory / key;
    fs::path manifest = entry / "build.json";

    if (options_.use_cache && fs::exists(manifest)) {
        auto text = read_text_file(manifest);
        if (text.ok()) {
            try {
                BuildOutcome cached = outcome_from_json(nlohmann::json::parse(*text));
                if (cached.status != BuildStatus::Ok || fs::exists(cached.library)) {
                    cached.cache_hit = true;
                    return cached;
                }
            } catch (const std::exception&) {
                // a damaged entry is rebuilt below
            }
        }
    }

    // Build in a private folder, then move it into place: a crash never leaves a half entry.
    std::error_code ec;
    fs::create_directories(options_.cache_directory, ec);
    fs::path work = options_.cache_directory / (key + ".tmp-" + std::to_string(::getpid()) + "-" +
                                                std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
    fs::remove_all(work, ec);
    fs::create_directories(work, ec);
    if (ec) return make_error("cannot create the build cache folder " + path_text(work) + ": " + ec.message());
    if (auto s = write_file_atomically(work / "candidate.cu", *source); !s.ok()) return s.error();

    BuildOutcome outcome;
    outcome.key = key;
    outcome.arch = arch.name;
    outcome.launch_gate = launch_gate;
    outcome.library = entry / "candidate.so";
    outcome.source_copy = entry / "candidate.cu";
    std::vector<std::string> argv{*nvcc};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-I", options_.include_directory.string(), "-o", (work / "candidate.so").string(),
                             (work / "candidate.cu").string()});
    ProcessOptions process_options;
    process_options.timeout = request.timeout.value_or(options_.timeout);
    auto compiled = run_process(argv, process_options);
    if (!compiled.ok()) return compiled.error();
    outcome.command_line = compiled->command_line;
    outcome.compile_seconds = compiled->wall_seconds;
    // Compiler output quotes the source, which may hold any bytes: JSON and terminals need UTF-8.
    outcome.full_log = valid_utf8(compiled->stdout_text + compiled->stderr_text);
    outcome.ptxas_report = valid_utf8(compiled->stderr_text);
    if (!compiled->succeeded()) {
        outcome.status = BuildStatus::CompileError;
        outcome.message = compiled->timed_out ? "nvcc timed out after " + std::to_string(process_options.timeout.count()) +
                                                    " s (a task sets its limit with [build] compile_timeout_s)\n"
                                              : trim_compile_log(outcome.full_log);
    } else if (request.apply_guard) {
        auto guard = guard_library(work / "candidate.so", request.libraries);
        if (!guard.ok()) return guard.error();
        outcome.guard = *guard;
        outcome.status = guard->passed() ? BuildStatus::Ok : BuildStatus::RejectedByGuard;
        outcome.message = guard->passed() ? "" : valid_utf8(guard->describe());
    } else {
        outcome.guard.exports_forward = true;
        outcome.status = BuildStatus::Ok;
    }
    if (compiled->timed_out) {  // says nothing about the source under a longer limit: not cached
        fs::remove_all(work, ec);
        return outcome;
    }
    if (auto s = write_file_atomically(work / "build.json", dump_json(outcome.to_json(), 2)); !s.ok()) return s.error();
    fs::remove_all(entry, ec);
    fs::rename(work, entry, ec);
    if (ec) {  // another process finished the same build first: use its entry
        fs::remove_all(work, ec);
    }
    return outcome;
}

std::vector<Result<BuildOutcome>> CandidateBuilder::build_many(const std::vector<BuildRequest>& requests, int parallelism) {
    if (parallelism <= 0) parallelism = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    toolchain_version();  // once, before the threads share it
    std::vector<std::optional<Result<BuildOutcome>>> results(requests.size());
    std::atomic<size_t> next{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < std::min<int>(parallelism, static_cast<int>(requests.size())); ++t)
        threads.emplace_back([&] {
            for (size_t i = next++; i < requests.size(); i = next++) results[i].emplace(build(requests[i]));
        });
    for (auto& t : threads) t.join();
    std::vector<Result<BuildOutcome>> out;
    for (auto& r : results) out.push_back(std::move(*r));
    return out;
}

}  // namespace kp
