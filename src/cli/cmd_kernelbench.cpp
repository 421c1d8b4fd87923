// kernelpro kernelbench import KB_ROOT --level 1|2|3|4 [--problems 1,19,23 | --all] --out DIR [--precision ...]
// kernelpro kernelbench export (RUN_DIR | CANDIDATE.cu) --task DIR --out model_new.py [-D NAME=V]
// Import: the problems of a KernelBench checkout become task folders (as `kernelpro import` does).
// Export: a kernel as KernelBench's ModelNew (docs/kernelbench.md). Exit codes: 0 ok, 2 usage or
// task error, 3 environment.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "cli/import_options.h"
#include "common/files.h"
#include "kernelbench/kernelbench_checkout.h"
#include "kernelbench/model_new_export.h"
#include "common/resource_locator.h"
#include "task/task_spec.h"

namespace kp::cli {

namespace fs = std::filesystem;

namespace {

struct KbImportArgs {
    std::string root, out, problems;
    int level = 1;
    bool all = false;
    ImportFlags flags;
};

struct KbExportArgs {
    std::string kernel, task, out = "model_new.py";
    std::vector<std::string> params;
};

int kernelbench_import(const KbImportArgs& a) {
    auto level = kernelbench::list_level(a.root, a.level);
    if (!level.ok()) {
        std::cerr << "error: " << level.error().message << "\n";
        return kExitUsage;
    }
    std::vector<kernelbench::KernelBenchProblem> chosen = *level;
    if (!a.all) {
        if (a.problems.empty()) {
            std::cerr << "error: give --problems 1,19,23 (ids or ranges) or --all\n";
            return kExitUsage;
        }
        auto ids = kernelbench::parse_problem_ids(a.problems);
        auto picked = ids.ok() ? kernelbench::select_problems(*level, *ids) : Result<std::vector<kernelbench::KernelBenchProblem>>(ids.error());
        if (!picked.ok()) {
            std::cerr << "error: " << picked.error().message << "\n";
            return kExitUsage;
        }
        chosen = *picked;
    }
    std::vector<kernelbench::ImportJob> jobs;
    for (const auto& p : chosen) {
        kernelbench::ImportJob job;
        job.file = p.file;
        job.naming.name = kernelbench::task_name_for(p.file, p.level, p.id, a.flags.precision);
        job.naming.description = fmt::format("KernelBench level {} problem {} ({}), {}", p.level, p.id, p.file.filename().string(),
                                             a.flags.precision);
        job.naming.origin = {"KernelBench", p.level, p.id, p.file.filename().string(), {}};
        job.task_dir = fs::path(a.out) / job.naming.name;
        jobs.push_back(job);
    }
    return run_import(jobs, a.flags, a.out, fmt::format("KernelBench level {} ({}), {} problems", a.level, a.flags.precision, jobs.size()));
}

// The kernel to export, with tunable values written in as #defines (-D, else each one's first value).
Result<std::string> kernel_for_export(const KbExportArgs& a, fs::path& task_dir) {
    fs::path kernel = a.kernel;
    if (fs::is_directory(kernel)) {
        if (task_dir.empty() && fs::is_regular_file(kernel / "task-path.txt")) {
            auto recorded = read_text_file(kernel / "task-path.txt");
            if (recorded.ok()) task_dir = recorded->substr(0, recorded->find_last_not_of("\n ") + 1);
        }
        kernel /= "best.cu";
    }
    auto source = read_text_file(kernel);
    if (!source.ok()) return source.error();
    auto space = parse_tunables(*source);
    if (!space.ok()) return make_error(kernel.string() + ": " + space.error().message);
    auto given = parse_parameter_values(a.params);
    if (!given.ok()) return given.error();
    std::string defines;
    for (const auto& p : space->parameters) {
        auto it = given->find(p.name);
        defines += fmt::format("#define {} {}\n", p.name, it != given->end() ? it->second : p.values.front());
    }
    return defines.empty() ? *source : "// Tunable parameters written in by kernelpro export:\n" + defines + *source;
}

int kernelbench_export(const KbExportArgs& a) {
    fs::path task_dir = a.task;
    auto kernel = kernel_for_export(a, task_dir);
    if (!kernel.ok()) {
        std::cerr << "error: " << kernel.error().message << "\n";
        return kExitUsage;
    }
    if (task_dir.empty()) {
        std::cerr << "error: give --task DIR (the imported task the kernel solves)\n";
        return kExitUsage;
    }
    auto task = load_task(task_dir);
    if (!task.ok()) {
        std::cerr << task.error().message << "\n";
        return kExitUsage;
    }
    auto abi_path = locate_abi_header();
    auto abi = abi_path.ok() ? read_text_file(*abi_path) : Result<std::string>(abi_path.error());
    auto problem = task->reference.pytorch ? read_text_file(task->reference.pytorch->source) : Result<std::string>(std::string());
    if (!abi.ok() || !problem.ok()) {
        std::cerr << "error: " << (!abi.ok() ? abi.error().message : problem.error().message) << "\n";
        return kExitEnvironment;
    }
    auto text = kernelbench::model_new_source({&*task, *kernel, *abi, *problem});
    if (!text.ok()) {
        std::cerr << "error: " << text.error().message << "\n";
        return kExitUsage;
    }
    if (auto w = write_file_atomically(a.out, *text); !w.ok()) {
        std::cerr << "error: " << w.error().message << "\n";
        return kExitEnvironment;
    }
    std::cout << a.out << "\n";
    return kExitOk;
}

}  // namespace

Handler register_kernelbench(CLI::App& root) {
    auto* cmd = root.add_subcommand("kernelbench", "KernelBench problems in (import) and ModelNew files out (export)");
    cmd->require_subcommand(1);
    auto imp = std::make_shared<KbImportArgs>();
    auto* import_cmd = cmd->add_subcommand("import", "Import the problems of a KernelBench checkout as tasks");
    import_cmd->add_option("kb_root", imp->root, "KernelBench checkout (holding KernelBench/level1 ...)")->required()->check(CLI::ExistingDirectory);
    import_cmd->add_option("--level", imp->level, "Level")->required()->check(CLI::Range(1, 4));
    auto* problems = import_cmd->add_option("--problems", imp->problems, "Problem ids: 1,19,23 or ranges 1-10");
    import_cmd->add_flag("--all", imp->all, "Every problem of the level")->excludes(problems);
    import_cmd->add_option("--out", imp->out, "Folder for the task folders and import-report.md")->required();
    add_import_flags(*import_cmd, imp->flags);
    auto exp = std::make_shared<KbExportArgs>();
    auto* export_cmd = cmd->add_subcommand("export", "Write a kernel as KernelBench's ModelNew");
    export_cmd->add_option("kernel", exp->kernel, "An optimize/bench output folder (its best.cu) or a candidate .cu")->required()
        ->check(CLI::ExistingPath);
    export_cmd->add_option("--task", exp->task, "The imported task the kernel solves (default: the run folder's task-path.txt)");
    export_cmd->add_option("--out", exp->out, "The ModelNew file to write")->capture_default_str();
    export_cmd->add_option("-D,--param", exp->params, "Tunable value NAME=VALUE (default: each parameter's first value)");
    return [=]() -> int {
        if (import_cmd->parsed()) return kernelbench_import(*imp);
        return kernelbench_export(*exp);
    };
}

}  // namespace kp::cli
