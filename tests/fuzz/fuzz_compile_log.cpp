// libFuzzer target: compiler output (any bytes, as nvcc may quote a source line holding them)
// through the UTF-8 boundary, the trimming and the citation of the user's file. The results must
// be valid UTF-8 and stay within the trim bounds.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "build/compile_log.h"
#include "common/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string raw(reinterpret_cast<const char*>(data), size);
    std::string log = kp::valid_utf8(raw);
    if (!kp::is_valid_utf8(log)) std::abort();
    if (kp::is_valid_utf8(raw) && log != raw) std::abort();  // valid text passes unchanged
    kp::TrimOptions options;
    std::string trimmed = kp::trim_compile_log(log, options);
    if (!kp::is_valid_utf8(trimmed)) std::abort();
    // max_chars bounds the kept lines; the "... (N more lines)" note may follow.
    if (trimmed.size() > options.max_chars + 64) std::abort();
    std::string cited = kp::cite_source_file(trimmed, "tasks/my task/kernel$1.cu");
    if (!kp::is_valid_utf8(cited)) std::abort();
    return 0;
}
