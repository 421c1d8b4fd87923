// kernelpro check TASK CANDIDATE.cu: everything `eval` and `optimize` will read, checked without a
// GPU: the task file, the candidate's `// kp:tune` lines and -D values, the reference build, and
// the candidate's build, static guard and ptxas resource report.
// Exit codes: 0 passed, 1 the candidate failed to build or was rejected, 2 usage or task error
// (the reference does not build either), 3 environment (no nvcc).
#include <iostream>

#include <fmt/format.h>

#include "build/candidate_builder.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "common/utf8.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace {

void print_text(const BuildOutcome& built) {
    std::cout << fmt::format("build    {} ({}, {:.2f} s{})\n", build_status_name(built.status), built.arch,
                             built.compile_seconds, built.cache_hit ? ", cached" : "");
    if (!built.message.empty()) std::cout << built.message;
    if (built.ok()) {
        std::cout << "guard    passed (" << built.guard.undefined_symbols.size() << " imported symbols checked)\n";
        std::cout << "ptxas resource report:\n" << built.ptxas_report;
    }
}

}  // namespace

Handler register_check(CLI::App& root) {
    auto* cmd = root.add_subcommand("check", "Build a candidate, run the static guard and show its ptxas resource report (no GPU needed)");
    auto task_path = std::make_shared<std::string>();
    auto candidate = std::make_shared<std::string>();
    auto params = std::make_shared<std::vector<std::string>>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("task", *task_path, "Task folder (holding task.toml)")->required();
    cmd->add_option("candidate", *candidate, "Candidate .cu file")->required()->check(CLI::ExistingFile);
    cmd->add_option("-D,--param", *params, "Tunable value NAME=VALUE (repeatable)")
        ->allow_extra_args(false);  // one value per -D: it must not swallow the positionals after it
    cmd->add_flag("--json", *json, "Print JSON instead of text");
    return [=]() -> int {
        auto task = load_task(*task_path);
        if (!task.ok()) {
            std::cerr << task.error().message << "\n";
            return kExitUsage;
        }
        auto values = candidate_parameter_values(*candidate, *params);
        if (!values.ok()) {
            std::cerr << "error: " << values.error().message << "\n";
            return kExitUsage;
        }
        BuilderOptions options;
        options.arch = detect_gpu_arch();
        CandidateBuilder builder(options);
        // The reference is built exactly as `eval` builds it (trusted, the same cache entry), so a
        // task whose reference does not compile fails here and not after a GPU is found.
        std::vector<BuildRequest> requests{task_build_request(*task, *candidate, *values)};
        if (task->reference.source) requests.push_back(task_build_request(*task, *task->reference.source, {}, false));
        auto builds = builder.build_many(requests);
        for (const auto& b : builds)
            if (!b.ok()) {
                std::cerr << "error: " << b.error().message << "\n";
                return kExitEnvironment;
            }
        if (builds.size() > 1 && !builds[1]->ok()) {
            std::cerr << "error: the task's reference " << path_text(*task->reference.source) << " does not build:\n"
                      << builds[1]->message;
            return kExitUsage;
        }
        const BuildOutcome& built = *builds[0];
        if (*json) std::cout << dump_json(built.to_json(), 2) << "\n";
        else print_text(built);
        return built.ok() ? kExitOk : kExitCandidateFailed;
    };
}

}  // namespace kp::cli
