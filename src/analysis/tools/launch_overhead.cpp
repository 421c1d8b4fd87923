// System level, from a timeline: many small kernels, launch latency and host gaps leave the GPU idle.
#include <algorithm>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

constexpr double kMinIdleShare = 0.20;       // the GPU idles a fifth of the span between first and last kernel
constexpr double kSmallKernelSeconds = 10e-6;  // launch cost (~2-5 us) is comparable to such kernels
constexpr int kManyLaunches = 10;

class LaunchOverheadTool final : public DescribedTool {
public:
    LaunchOverheadTool()
        : DescribedTool("launch_overhead", every_class(), DataNeeds{{}, false, false, false, /*timeline=*/true, false},
                        "GPU idle >= 20% of the timeline span, or >= 10 launches with a median kernel < 10 us; "
                        "gain = idle share of the span") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& timeline = ctx.data().timeline;
        if (!timeline || timeline->span_seconds <= 0 || timeline->kernel_launches == 0) return std::nullopt;
        double busy = std::min(timeline->kernel_seconds + timeline->memcpy_seconds, timeline->span_seconds);
        double idle = 1.0 - busy / timeline->span_seconds;
        bool many_small = timeline->kernel_launches >= kManyLaunches && timeline->median_kernel_seconds < kSmallKernelSeconds;
        if (idle < kMinIdleShare && !many_small) return std::nullopt;
        Finding f;
        f.estimated_gain = idle;
        f.evidence.push_back(metric_evidence("kernel launches", timeline->kernel_launches));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "GPU idle share of span", format_percent(idle)));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "median kernel", format_number(timeline->median_kernel_seconds * 1e6) + " us"));
        if (timeline->mean_launch_latency_seconds > 0)
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "mean launch latency", format_number(timeline->mean_launch_latency_seconds * 1e6) + " us"));
        if (timeline->host_synchronizations > 0) f.evidence.push_back(metric_evidence("host synchronizations", timeline->host_synchronizations));
        f.summary = std::to_string(timeline->kernel_launches) + " kernel launches leave the GPU idle " + format_percent(idle) +
                    " of the time (median kernel " + format_number(timeline->median_kernel_seconds * 1e6) + " us)";
        f.guidance = "Fuse the small kernels into one (or capture the sequence in a CUDA Graph) and remove host synchronizations and "
                     "copies between launches.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_launch_overhead_tool() { return std::make_unique<LaunchOverheadTool>(); }

}  // namespace kp::analysis
