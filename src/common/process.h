// The one way the project runs external tools (nvcc, ncu, nvdisasm, nm ...): captures stdout and
// stderr, enforces a timeout, and reports the exact command line on failure.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace kp {

struct ProcessOptions {
    std::chrono::milliseconds timeout{std::chrono::minutes(5)};
    std::optional<std::string> working_directory;
    std::map<std::string, std::string> extra_environment;  // added to (or replacing in) the parent's
    std::optional<std::string> stdin_data;
};

struct ProcessResult {
    int exit_code = -1;        // valid when !signaled and !timed_out
    bool signaled = false;     // terminated by a signal (term_signal says which)
    int term_signal = 0;
    bool timed_out = false;    // killed by us after the timeout
    std::string stdout_text;
    std::string stderr_text;
    double wall_seconds = 0.0;
    std::string command_line;  // shell-quoted, for messages

    bool succeeded() const { return !signaled && !timed_out && exit_code == 0; }
    // One line: "`cmd` exited with 1" / "was killed by signal 9" / "timed out after 5 s".
    std::string describe_failure() const;
};

// Runs argv[0] (looked up in PATH) with the given arguments. Fails only when the program cannot be
// started at all; a non-zero exit is a ProcessResult, not an error.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// Quotes one argument for display in a shell-like command line.
std::string shell_quote(const std::string& argument);
std::string join_command_line(const std::vector<std::string>& argv);

// Finds an executable in PATH (or returns the path itself if it contains a '/' and is executable).
std::optional<std::string> find_executable(const std::string& name);

// Writes all of `data` to a pipe whose reader may already be gone (a child that died at once): the
// write then stops with EPIPE instead of a SIGPIPE ending this process. False if not all was written.
bool write_to_pipe(int fd, std::string_view data);

}  // namespace kp
