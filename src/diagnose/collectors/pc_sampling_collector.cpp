// "pcsampling": CUPTI PC sampling of one call, taken by the worker in its counters run (after the
// replay passes: no second worker, one more call, kernel-serialized; with a profiling tree, in the
// stage-2 follow-up and only when a kernel's leaf takes it): the warps' stall reasons per
// PC, mapped to the candidate's source lines through nvdisasm's line info, so each finding can
// quote the lines behind its cost (analysis/line_evidence.h). This collector asks the counters run
// for the samples and hands each kernel its lines.
#include "diagnose/collector.h"
#include "diagnose/session_steps.h"

namespace kp::diagnose {

namespace {

class PcSamplingCollector final : public Collector {
public:
    std::string_view name() const override { return "pcsampling"; }
    std::string_view provides() const override {
        return "CUPTI PC sampling of one call in the counters run: stall reasons per source line, the lines findings quote";
    }
    // Once the kernels are known, or after stage 2 (`reconcile`) when the first collection left the samples to it.
    std::vector<CollectorStage> stages() const override { return {CollectorStage::kernels, CollectorStage::reconcile}; }
    bool needs_gpu() const override { return true; }
    // No replay: one more call, serialized per kernel, plus CUPTI's set-up (estimated, not yet measured).
    profile::CollectorCost declared_cost() const override { return {0, 0.2}; }
    void configure(CollectionPlan& plan) const override { plan.sample_pcs = true; }

    Status collect(CollectorStage stage, ProfileSession& s) const override {
        if (!s.call_data_read_at(stage) || !s.pc_sampling) return {};
        ChargeTime charge{s.report.collector_seconds["pcsampling"]};
        for (auto& data : s.kernels) {
            if (!data.sass_function) continue;
            auto lines = profile::samples_by_line(*s.pc_sampling, *data.sass_function);
            if (lines.samples == 0) continue;
            data.line_samples = std::move(lines);  // the text is every kernel's already (kernel_data)
        }
        if (s.pc_sampling->dropped_samples > 0)
            s.report.notes.push_back("pc sampling: " + std::to_string(s.pc_sampling->dropped_samples) + " of " +
                                     std::to_string(s.pc_sampling->total_samples) + " samples dropped");
        return {};
    }
};

}  // namespace

std::unique_ptr<Collector> make_pc_sampling_collector() { return std::make_unique<PcSamplingCollector>(); }

}  // namespace kp::diagnose
