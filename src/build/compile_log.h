// Turns nvcc's full output into the part that matters for a person or an LLM fixing the code: the
// first real error with its source line, caret and argument types, and of its template context
// (CuTe and CUTLASS errors carry dozens of "instantiation of" frames with kilobytes of template
// arguments) only the innermost frame and the frames in the user's own file, where the fix goes;
// then later errors one line each. File paths shortened, duplicates dropped, bounded size.
#pragma once

#include <string>

namespace kp {

struct TrimOptions {
    size_t max_lines = 40;
    size_t max_chars = 4000;
    size_t max_line_chars = 400;              // longer lines (a whole template signature) are cut
    size_t max_template_arguments_chars = 160;  // of a frame's [with ...] list
    size_t later_errors = 5;                  // later errors listed, one line each
    std::string user_file = "candidate.cu";   // frames there are always kept (the builder's copy's name)
};

std::string trim_compile_log(const std::string& log, const TrimOptions& options = {});

// Replaces the build cache's copy of the source (`/any/folder/candidate.cu` or `candidate.cu`) by
// the user's own file in compiler messages, so they cite the file the user edits.
std::string cite_source_file(const std::string& log, const std::string& user_file);

}  // namespace kp
