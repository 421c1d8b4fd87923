// Grids that leave SMs idle: fewer blocks than SMs, or a last partial wave (tail effect).
#include <cmath>

#include "analysis/tools/builtin_tools.h"
#include "analysis/tools/tool_base.h"

namespace kp::analysis {
namespace {

// Beyond ten waves a partial last wave wastes under 10% of SM time; not worth a finding.
constexpr double kMaxWavesForTail = 10.0;

class SmallGridTailTool final : public DescribedTool {
public:
    SmallGridTailTool()
        : DescribedTool("small_grid_tail", every_class(),
                        DataNeeds{{"launch__grid_size", "launch__block_size", "launch__waves_per_multiprocessor", "launch__sm_count",
                                   "device__attribute_multiprocessor_count"},
                                  false, false, false, false, false},
                        "grid < SM count (gain = idle SM share), or 1-10 waves with a partial last wave "
                        "(gain = idle share of the last wave over all waves)") {}

    std::optional<Finding> diagnose(const ToolContext& ctx) const override {
        const auto& m = ctx.metrics();
        auto grid = m.get("launch__grid_size");
        if (!grid || *grid <= 0) return std::nullopt;
        double sms = m.first_of({"launch__sm_count", "device__attribute_multiprocessor_count"}).value_or(ctx.data().ceilings.device.sm_count);
        auto waves = m.get("launch__waves_per_multiprocessor");
        Finding f;
        f.evidence.push_back(metric_evidence("launch__grid_size", *grid));
        f.evidence.push_back(metric_evidence("SM count", sms));
        if (waves) f.evidence.push_back(metric_evidence("launch__waves_per_multiprocessor", *waves));
        double block = m.get_or("launch__block_size", 0);
        if (*grid < sms) {
            f.estimated_gain = (sms - *grid) / sms;
            f.summary = "the grid has " + format_number(*grid) + " blocks of " + format_number(block) + " threads for " + format_number(sms) +
                        " SMs: " + format_percent(f.estimated_gain) + " of the GPU stays idle";
            f.remedies = finer_grid(Rewrite::fill_the_gpu);
            f.guidance = "Launch at least one block per SM (several per SM to hide latency): split the work finer, e.g. more, smaller "
                         "blocks or a split-K / per-row decomposition.";
            return f;
        }
        if (!waves || *waves < 1.0 || *waves > kMaxWavesForTail) return std::nullopt;
        double full = std::floor(*waves);
        double partial = *waves - full;
        if (partial < 1e-3) return std::nullopt;  // a whole number of waves: no tail
        double total_waves = full + 1;
        f.estimated_gain = (1.0 - partial) / total_waves;
        f.summary = "the grid runs " + format_number(*waves) + " waves; the last wave fills only " + format_percent(partial) +
                    " of the SMs (tail effect)";
        f.remedies = finer_grid(Rewrite::whole_waves);
        f.guidance = "Size the grid to a whole number of waves (a multiple of SMs x resident blocks per SM) or use a persistent grid-stride "
                     "loop with exactly that many blocks.";
        return f;
    }
};

}  // namespace

std::unique_ptr<MicroTool> make_small_grid_tail_tool() { return std::make_unique<SmallGridTailTool>(); }

}  // namespace kp::analysis
