// Runs the real kernelpro binary (the one this build produced) in a scratch folder, for the CLI
// tests: exit code, stdout, stderr and the first line of each.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/files.h"
#include "common/process.h"

namespace kp::cli_test {

struct CliRun {
    int exit_code = -1;
    std::string out, err;
    std::string first_out_line() const { return out.substr(0, out.find('\n')); }
    std::string first_err_line() const { return err.substr(0, err.find('\n')); }
};

inline CliRun run_kernelpro(const std::vector<std::string>& args, const std::filesystem::path& folder,
                            std::map<std::string, std::string> environment = {}) {
    // The binary of this build, else `kernelpro` on PATH (a GPU bundle puts it there).
    std::vector<std::string> argv{std::filesystem::exists(KP_KERNELPRO_BINARY) ? KP_KERNELPRO_BINARY : "kernelpro"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.working_directory = folder.string();
    options.timeout = std::chrono::seconds(240);
    environment.emplace("KERNELPRO_CACHE_DIR", (folder / ".cache").string());
    options.extra_environment = environment;
    auto run = run_process(argv, options);
    CliRun result;
    if (!run.ok()) {
        result.err = run.error().message;
        return result;
    }
    result.exit_code = run->signaled ? 128 + run->term_signal : run->exit_code;
    result.out = run->stdout_text;
    result.err = run->stderr_text;
    return result;
}

}  // namespace kp::cli_test
