// kernelpro: only dispatches to the subcommands (one file each).
#include <cstdio>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
    CLI::App app{"kernelpro: makes CUDA kernels faster in a closed loop (compile, verify, time, profile, search)"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "kernelpro 0.1.0");
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
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : kp::cli::kExitUsage;
    }
    for (auto& [sub, handler] : handlers)
        if (sub->parsed()) return handler();
    return kp::cli::kExitUsage;
}
