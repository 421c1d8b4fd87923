// kernelpro import PROBLEM.py... [--out DIR] [--precision fp32|fp16|bf16] [--check-constant auto|on|off]
// Each file in KernelBench's problem format (class Model, get_inputs, get_init_inputs) becomes a
// task folder OUT/NAME (docs/kernelbench.md); OUT/import-report.md lists what did not convert, why.
// Exit codes: 0 at least one task written, 2 none (every reason printed), 3 environment (no Python/torch).
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/import_options.h"
#include "kernelbench/import_report.h"

namespace kp::cli {

namespace {
struct ImportArgs {
    std::vector<std::string> files;
    std::string out = "kernelpro-tasks";
    ImportFlags flags;
};
}  // namespace

Handler register_import(CLI::App& root) {
    auto* cmd = root.add_subcommand("import", "Turn PyTorch problems in KernelBench's format into kernelpro tasks");
    auto a = std::make_shared<ImportArgs>();
    cmd->add_option("problems", a->files, "Problem files (.py: class Model, get_inputs, get_init_inputs)")->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("--out", a->out, "Folder for the task folders and import-report.md")->capture_default_str();
    add_import_flags(*cmd, a->flags);
    return [a]() -> int {
        std::vector<kernelbench::ImportJob> jobs;
        for (const auto& file : a->files) {
            kernelbench::ImportJob job;
            job.file = file;
            job.naming.name = kernelbench::task_name_for(file, 0, 0, a->flags.precision);
            job.naming.description = fmt::format("{} ({}), imported from PyTorch", job.file.filename().string(), a->flags.precision);
            job.naming.origin.file = job.file.filename().string();
            job.task_dir = std::filesystem::path(a->out) / job.naming.name;
            jobs.push_back(job);
        }
        return run_import(jobs, a->flags, a->out, "Import of " + std::to_string(jobs.size()) + " problem file(s)");
    };
}

}  // namespace kp::cli
