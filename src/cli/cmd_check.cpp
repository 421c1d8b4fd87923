// kernelpro check TASK CANDIDATE.cu: build + static guard + ptxas resource report, no GPU needed.
#include <iostream>

#include <fmt/format.h>

#include "build/candidate_builder.h"
#include "cli/commands.h"
#include "cli/common_options.h"
#include "task/task_spec.h"

namespace kp::cli {

Handler register_check(CLI::App& root) {
    auto* cmd = root.add_subcommand("check", "Build a candidate, run the static guard and show its ptxas resource report (no GPU needed)");
    auto task_path = std::make_shared<std::string>();
    auto candidate = std::make_shared<std::string>();
    auto params = std::make_shared<std::vector<std::string>>();
    auto json = std::make_shared<bool>(false);
    cmd->add_option("task", *task_path, "Task folder (holding task.toml)")->required();
    cmd->add_option("candidate", *candidate, "Candidate .cu file")->required()->check(CLI::ExistingFile);
    cmd->add_option("-D,--param", *params, "Tunable value NAME=VALUE (repeatable)");
    cmd->add_flag("--json", *json, "Print JSON instead of text");
    return [=]() -> int {
        auto task = load_task(*task_path);
        if (!task.ok()) {
            std::cerr << task.error().message << "\n";
            return kExitUsage;
        }
        auto values = parse_parameter_values(*params);
        if (!values.ok()) {
            std::cerr << "error: " << values.error().message << "\n";
            return kExitUsage;
        }
        BuilderOptions options;
        options.arch = detect_gpu_arch();
        CandidateBuilder builder(options);
        auto built = builder.build({*candidate, *values, task->libraries, true});
        if (!built.ok()) {
            std::cerr << "error: " << built.error().message << "\n";
            return kExitEnvironment;
        }
        if (*json) {
            std::cout << built->to_json().dump(2) << "\n";
        } else {
            std::cout << fmt::format("build    {} ({}, {:.2f} s{})\n", build_status_name(built->status), built->arch,
                                     built->compile_seconds, built->cache_hit ? ", cached" : "");
            if (!built->message.empty()) std::cout << built->message;
            if (built->ok()) {
                std::cout << "guard    passed (" << built->guard.undefined_symbols.size() << " imported symbols checked)\n";
                std::cout << "ptxas resource report:\n" << built->ptxas_report;
            }
        }
        return built->ok() ? kExitOk : kExitCandidateFailed;
    };
}

}  // namespace kp::cli
