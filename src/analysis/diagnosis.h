// Stage 2: run the tools that fit the kernel's roofline class, keep the findings whose estimated
// gain clears a floor, and rank them by gain.
#pragma once

#include <string>
#include <vector>

#include "analysis/finding.h"
#include "analysis/roofline.h"
#include "analysis/tool_registry.h"
#include "common/result.h"

namespace kp::analysis {

struct DiagnosisOptions {
    // Findings below this share of kernel time are dropped. NVIDIA's rules fire on nearly every
    // kernel (MemoryL2Compression fired on all nine probes); a 5% floor keeps what is worth an
    // optimization attempt, since run-to-run timing noise on H200 is a few percent.
    double min_gain = 0.05;
    size_t max_findings = 8;
    bool gate_by_class = true;            // false: run every tool regardless of the class
    std::vector<std::string> only_tools;  // non-empty: run just these
};

struct Diagnosis {
    std::string kernel_name;
    RooflineResult roofline;
    std::vector<Finding> findings;        // ranked, highest gain first
    std::vector<std::string> tools_run;
    std::vector<std::string> tools_without_data;  // needed SASS/ptxas/timeline that was absent
};

// Without ncu metrics (SASS/ptxas only, or a timeline) the roofline is left unknown and the tools
// that can judge from the rest run; an error only when the counters cannot be classified.
Result<Diagnosis> diagnose(const ProfileData& data, const ToolRegistry& registry = default_tool_registry(),
                           const DiagnosisOptions& options = {});

}  // namespace kp::analysis
