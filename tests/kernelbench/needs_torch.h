// Tests that run the Python importer or the bridge need PyTorch in the Python kernelpro uses
// (scripts/setup installs it). Without it they skip and say why: KP_SKIP_WITHOUT_TORCH();
#pragma once

#include <optional>
#include <string>

#include "common/process.h"
#include "eval/python_environment.h"

namespace kp::testing {

// Why PyTorch cannot be used here, or nullopt when `import torch` works (asked once per process).
inline const std::optional<std::string>& torch_missing() {
    static const std::optional<std::string> why = []() -> std::optional<std::string> {
        auto python = python_executable();
        if (!python.ok()) return "no Python for the PyTorch bridge: " + python.error().message;
        auto r = run_process({*python, "-c", "import torch"});
        if (r.ok() && r->succeeded()) return std::nullopt;
        std::string detail = r.ok() ? r->stderr_text : r.error().message;
        while (!detail.empty() && detail.back() == '\n') detail.pop_back();
        detail = detail.substr(detail.rfind('\n') + 1);  // the exception's line, not the traceback
        return "PyTorch is not importable by " + *python + " (scripts/setup installs it): " + detail;
    }();
    return why;
}

}  // namespace kp::testing

#define KP_SKIP_WITHOUT_TORCH()                                                  \
    do {                                                                         \
        if (const auto& why = ::kp::testing::torch_missing()) GTEST_SKIP() << *why; \
    } while (0)
