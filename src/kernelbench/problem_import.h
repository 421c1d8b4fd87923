// `kernelpro import`: KernelBench-format problem files in, task folders out. The Python importer
// (python/kernelpro_torch/import_cli.py) finds the facts, in batches, in a child process; this side
// writes task.toml and import.json, and checks that every task loads. A problem whose code takes
// the interpreter down costs that problem only: the batch goes on without it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kernelbench/task_from_import.h"

namespace kp::kernelbench {

struct ImportJob {
    std::filesystem::path file;      // the problem's .py
    std::filesystem::path task_dir;  // where its task folder goes
    TaskNaming naming;
};

enum class ImportStatus { converted, unconvertible, error };
const char* import_status_name(ImportStatus status);

struct ImportOutcome {
    ImportJob job;
    ImportStatus status = ImportStatus::error;
    std::string reason;                // why not converted
    std::vector<std::string> flags;    // converted tasks: "degenerate", ...
    std::vector<std::string> notes;
    nlohmann::json constant_check;     // what the zeros / mean check found, or why it was skipped
    double seconds = 0;
};

struct ImportOptions {
    std::string precision = "fp32";       // fp32 fp16 bf16
    std::string check_constant = "auto";  // auto (GPU, or the CPU for small problems) | on | off
    size_t batch = 10;                    // problems per Python process
    int jobs = 1;                         // Python processes at once
    std::function<void(const ImportOutcome&)> on_outcome;  // progress, as each problem finishes
};

// Errors only when Python or the package cannot be found; every problem's own failure is an outcome.
Result<std::vector<ImportOutcome>> import_problems(const std::vector<ImportJob>& jobs, const ImportOptions& options);

}  // namespace kp::kernelbench
