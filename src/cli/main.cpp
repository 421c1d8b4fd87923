// kernelpro: only dispatches to the subcommands (one file each), and is the last line of defence:
// whatever escapes a command (an exception nobody expected) is one line and exit 3, never an abort.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <exception>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/child_processes.h"
#include "common/utf8.h"

namespace {

std::string command_names(CLI::App& app) {
    std::string names;
    for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + sub->get_name();
    return names;
}

CLI::App* find_command(CLI::App& app, const std::string& name) {
    for (auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
        if (sub->get_name() == name) return sub;
    return nullptr;
}

// `kernelpro`, `kernelpro help [COMMAND]` and `kernelpro NOT-A-COMMAND` before CLI11 sees them,
// so the user gets the command list instead of "A subcommand is required".
std::optional<int> handle_missing_or_unknown_command(CLI::App& app, int argc, char** argv) {
    if (argc < 2) {
        std::cout << app.help();
        return kp::cli::kExitUsage;
    }
    std::string first = argv[1];
    if (first == "help") {
        if (argc >= 3)
            if (auto* sub = find_command(app, argv[2])) {
                std::cout << sub->help("kernelpro");
                return kp::cli::kExitOk;
            }
        std::cout << app.help();
        return kp::cli::kExitOk;
    }
    if (!first.empty() && first[0] != '-' && !find_command(app, first)) {
        std::cerr << "error: unknown command '" << kp::valid_utf8(first) << "' (commands: " << command_names(app)
                  << "; see kernelpro --help)\n";
        return kp::cli::kExitUsage;
    }
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    kp::install_child_cleanup();
    CLI::App app{"kernelpro: makes CUDA kernels faster in a closed loop (compile, verify, time, profile, search)", "kernelpro"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "kernelpro 0.1.0");
    // Before or after the command name (fallthrough): every build of the run uses these headers.
    std::string cutlass_dir;
    app.add_option("--cutlass-dir", cutlass_dir,
                   "CUTLASS checkout or install (holding include/cutlass) for tasks that allow cutlass; sets KERNELPRO_CUTLASS_DIR")
        ->check(CLI::ExistingDirectory);
    app.fallthrough();
    std::vector<std::pair<CLI::App*, kp::cli::Handler>> handlers;
    auto add = [&](kp::cli::Handler handler) {
        handlers.emplace_back(app.get_subcommands({}).back(), std::move(handler));
    };
    add(kp::cli::register_doctor(app));
    add(kp::cli::register_check(app));
    add(kp::cli::register_eval(app));
    add(kp::cli::register_device(app));
    add(kp::cli::register_optimize(app));
    add(kp::cli::register_runs(app));
    add(kp::cli::register_profile(app));
    add(kp::cli::register_report(app));
    add(kp::cli::register_import(app));
    add(kp::cli::register_kernelbench(app));
    add(kp::cli::register_bench(app));
    add(kp::cli::register_autoprofile(app));
    add(kp::cli::register_codesearch(app));
    if (auto code = handle_missing_or_unknown_command(app, argc, argv)) return *code;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : kp::cli::kExitUsage;
    }
    if (!cutlass_dir.empty()) ::setenv("KERNELPRO_CUTLASS_DIR", std::filesystem::absolute(cutlass_dir).c_str(), 1);
    try {
        for (auto& [sub, handler] : handlers)
            if (sub->parsed()) return handler();
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << kp::valid_utf8(e.what()) << " (a kernelpro bug; please report it)\n";
        return kp::cli::kExitEnvironment;
    }
    return kp::cli::kExitUsage;
}
