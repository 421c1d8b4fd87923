// Options and the run shared by `kernelpro import` and `kernelpro kernelbench import`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernelbench/problem_import.h"

namespace kp::cli {

struct ImportFlags {
    std::string precision = "fp32";
    std::string check_constant = "auto";
    int jobs = 1;
    bool quiet = false;
};

void add_import_flags(CLI::App& cmd, ImportFlags& flags);

// Imports, writes the reports, prints the summary; returns the exit code (0 some tasks written,
// 2 none, 3 environment).
int run_import(const std::vector<kernelbench::ImportJob>& jobs, const ImportFlags& flags, const std::filesystem::path& out_dir,
               const std::string& title);

}  // namespace kp::cli
