// Turns nvcc's full output into the part that matters for a person or an LLM fixing the code:
// the error lines with a little context, file paths shortened, duplicates dropped, bounded size.
#pragma once

#include <string>

namespace kp {

struct TrimOptions {
    size_t max_lines = 40;
    size_t max_chars = 4000;
    size_t context_lines = 2;  // lines kept after each error line (nvcc prints the source line and a caret)
};

std::string trim_compile_log(const std::string& log, const TrimOptions& options = {});

// Replaces the build cache's copy of the source (`/any/folder/candidate.cu` or `candidate.cu`) by
// the user's own file in compiler messages, so they cite the file the user edits.
std::string cite_source_file(const std::string& log, const std::string& user_file);

}  // namespace kp
