// libFuzzer target: task.toml text through the task parser. Whatever the bytes, parse_task must
// return a TaskSpec or an error whose every line reads `task.toml:LINE: FIELD: ...` (or a syntax
// line), in valid UTF-8, and never throw, crash or overflow (ASan and UBSan watch).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/utf8.h"
#include "task/task_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto task = kp::parse_task(text, "/nonexistent-kp-fuzz/task.toml");
    if (task.ok()) {
        (void)kp::dump_json(kp::to_json(*task));
        for (const auto& t : task->outputs) (void)task->tolerance_for(t);
        return 0;
    }
    const std::string& message = task.error().message;
    if (!kp::is_valid_utf8(message)) std::abort();
    std::istringstream lines(message);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("task.toml:", 0) != 0) {  // every problem names the file and line
            std::fprintf(stderr, "problem line without task.toml:LINE: %s\n", line.c_str());
            std::abort();
        }
    return 0;
}
