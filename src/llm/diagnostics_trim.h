// Compiler and correctness diagnostics, cut down to what a fixer model needs: the first errors
// with a little context, no repeats, no scratch-directory paths (which also keeps prompts equal
// across runs, so recordings replay).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace kp::llm {

struct DiagnosticsLimits {
    std::size_t max_lines = 60;
    std::size_t max_chars = 6000;
    std::size_t context_lines = 3;  // kept after each line that mentions an error
    std::size_t max_line_chars = 400;  // longer lines (a whole template instantiation) are cut
};

// "/tmp/kp-build-x1y2/candidate.cu(42): error: ..." -> "candidate.cu(42): error: ...".
std::string strip_directories(std::string_view text);

std::string trim_diagnostics(std::string_view text, const DiagnosticsLimits& limits = {});

}  // namespace kp::llm
