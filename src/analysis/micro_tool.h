// The interface every micro-profiling tool implements. A tool reads raw data (ncu metrics, SASS,
// ptxas, the source page, a timeline), decides whether its one problem is present, and estimates
// how much of the kernel's time fixing it would save. Tools never print; they return a Finding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/finding.h"
#include "analysis/roofline.h"
#include "analysis/tool_context.h"

namespace kp::analysis {

// What a tool reads. The planner unions these to decide which collectors to run.
struct DataNeeds {
    std::vector<std::string> metrics;  // ncu metric names
    bool sass = false;
    bool ptxas = false;
    bool source_page = false;  // per-instruction counters; optional for tools that only cite lines
    bool timeline = false;
    bool occupancy = false;
};

class MicroTool {
public:
    virtual ~MicroTool() = default;
    virtual std::string_view name() const = 0;
    // Roofline classes the tool is worth running for; stage 2 skips it for the others.
    virtual std::vector<RooflineClass> classes() const = 0;
    virtual DataNeeds needs() const = 0;
    // The firing threshold and why, for docs/profiling.md and --explain output.
    virtual std::string_view threshold() const = 0;
    // nullopt when the problem is absent or the data to judge it is missing.
    virtual std::optional<Finding> diagnose(const ToolContext& context) const = 0;
};

}  // namespace kp::analysis
