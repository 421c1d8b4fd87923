// Every subcommand registers itself on the root CLI::App and returns the handler to run when that
// subcommand is selected. Exit codes (all commands): 0 success, 1 the candidate failed, 2 usage or
// task error, 3 internal or environment error (e.g. a tool is missing).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace kp::cli {

using Handler = std::function<int()>;

constexpr int kExitOk = 0;
constexpr int kExitCandidateFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitEnvironment = 3;

// Declared here, defined in cmd_<name>.cpp. Add a line when adding a subcommand; main.cpp lists
// them in the same order.
Handler register_doctor(CLI::App& root);
Handler register_check(CLI::App& root);
Handler register_eval(CLI::App& root);
Handler register_device(CLI::App& root);
Handler register_optimize(CLI::App& root);
Handler register_runs(CLI::App& root);
Handler register_profile(CLI::App& root);
Handler register_report(CLI::App& root);
Handler register_import(CLI::App& root);
Handler register_kernelbench(CLI::App& root);
Handler register_bench(CLI::App& root);
Handler register_autoprofile(CLI::App& root);
Handler register_codesearch(CLI::App& root);

}  // namespace kp::cli
