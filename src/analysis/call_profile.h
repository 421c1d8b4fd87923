// The profile of one call of the candidate, above its kernels: each kernel's share of the call's
// GPU time, repeated launches of one kernel (same function, grid and block) counted once, and
// the findings ranked by what fixing them saves on the whole call (a finding's gain on its kernel
// times that kernel's share). A kernel that takes a few percent of the call never heads the list:
// a 95% tail on a 1-thread zeroing kernel saves nothing worth a rewrite. Findings that judge the
// call itself (the timeline's launch overhead) are counted once, at their own gain.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "gpu/timeline.h"

namespace kp::analysis {

// One counted kernel launch of the call.
struct KernelLaunch {
    std::string kernel_name;
    std::string grid, block;  // "(256, 1, 1)"
    double seconds = 0;
};

// The launches of one kernel with one configuration.
struct LaunchGroup {
    std::string kernel_name;
    std::string grid, block;
    int launches = 0;
    double seconds = 0;         // all its launches in one call
    size_t representative = 0;  // the launch (index into the input) with the median duration
};

// By total time, longest first; launches of one function with different grids stay apart.
std::vector<LaunchGroup> group_launches(const std::vector<KernelLaunch>& launches);

// The counters count at most a few launches of a call (max_kernels); the timeline sees all of
// them. A group whose function appears in the timeline more often than it was counted takes the
// timeline's launch count and time (only when the function has one group, so the configuration
// is not in doubt).
void complete_from_timeline(std::vector<LaunchGroup>& groups, const gpu::TimelineSummary& timeline);

struct CallKernel {
    std::string kernel_name;
    std::string grid, block;
    int launches = 1;
    double seconds = 0;  // all its launches in one call
    double share = 0;    // of the call's kernel time
};

struct CallFinding {
    Finding finding;          // as its kernel's diagnosis gives it (gain on that kernel)
    std::string kernel_name;  // empty: the finding judges the call as a whole
    double kernel_share = 1;  // the share of the call that kernel takes (1 for the call)
    double call_gain = 0;     // the share of the call's time a fix could save
};

struct CallProfile {
    double gpu_seconds = 0;  // kernel time of one call
    int launches = 0;
    std::vector<CallKernel> kernels;   // by share, largest first
    std::vector<CallFinding> findings; // by call gain; never headed by a kernel under min_headline_share
    // The task's roofline floor belongs to the whole call (every launch of it), not to one launch.
    std::optional<double> floor_seconds;
};

struct CallProfileOptions {
    double min_call_gain = 0.05;       // the same floor as a kernel's findings (DiagnosisOptions::min_gain)
    double min_headline_share = 0.10;  // a kernel under a tenth of the call ranks after all others
    size_t max_findings = 8;
};

// kernels[i] is described by diagnoses[i] (its representative launch). Call-level findings
// (tools that read only the timeline: launch_overhead) are kept once, at their own gain.
CallProfile profile_call(std::vector<CallKernel> kernels, const std::vector<const Diagnosis*>& diagnoses,
                         const ToolRegistry& registry = default_tool_registry(), const CallProfileOptions& options = {});

// Whether `tool` judges the whole call rather than one kernel: it reads the timeline and nothing else.
bool judges_the_call(const MicroTool& tool);

}  // namespace kp::analysis
