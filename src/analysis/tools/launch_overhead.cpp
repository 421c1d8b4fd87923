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
        if (!timeline) return std::nullopt;
        const int launches = timeline->launches_per_call();
        const double span = timeline->span_seconds_per_call();
        const double median_kernel = timeline->median_kernel_seconds();
        if (span <= 0 || launches == 0) return std::nullopt;
        double busy = std::min(timeline->kernel_seconds_per_call() + timeline->memcpy_seconds_per_call(), span);
        double idle = 1.0 - busy / span;
        bool many_small = launches >= kManyLaunches && median_kernel < kSmallKernelSeconds;
        if (idle < kMinIdleShare && !many_small) return std::nullopt;
        Finding f;
        f.estimated_gain = idle;
        f.evidence.push_back(metric_evidence("kernel launches", launches));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "GPU idle share of span", format_percent(idle)));
        f.evidence.push_back(text_evidence(Evidence::Kind::metric, "median kernel", format_number(median_kernel * 1e6) + " us"));
        if (timeline->mean_launch_latency_seconds() > 0)
            f.evidence.push_back(text_evidence(Evidence::Kind::metric, "mean launch latency",
                                               format_number(timeline->mean_launch_latency_seconds() * 1e6) + " us"));
        if (int syncs = timeline->host_synchronizations_per_call(); syncs > 0) f.evidence.push_back(metric_evidence("host synchronizations", syncs));
        f.summary = std::to_string(launches) + " kernel launches leave the GPU idle " + format_percent(idle) + " of the time (median kernel " +
                    format_number(median_kernel * 1e6) + " us)";
        f.remedies = {rewrite_only(Rewrite::fuse_kernels)};
        f.guidance = "Fuse the small kernels into one (or capture the sequence in a CUDA Graph) and remove host synchronizations and "
                     "copies between launches.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_launch_overhead_tool() { return std::make_unique<LaunchOverheadTool>(); }

}  // namespace kp::analysis
