// "source": ncu's source page (per-SASS-instruction counters and warp-stall samples) for the tools
// that point at lines. It costs about 12 more replay passes and needs ncu, so it is off unless
// asked for; allowing it lets the counter plans ask ncu for it, and this collector attaches the
// pages of the first collection to their kernels (stage 2 merges its own).
#include "diagnose/collector.h"
#include "diagnose/session_steps.h"
#include "profile/ncu_collector.h"

namespace kp::diagnose {

namespace {

class SourcePageCollector final : public Collector {
public:
    std::string_view name() const override { return "source"; }
    std::string_view provides() const override { return "ncu's per-instruction counters and stall samples, by source line"; }
    std::vector<CollectorStage> stages() const override { return {CollectorStage::kernels}; }
    bool on_by_default() const override { return false; }
    bool needs_gpu() const override { return true; }
    profile::CollectorCost declared_cost() const override { return {profile::estimate_ncu_replay_passes({}, {}, true), 3.0}; }
    void configure(CollectionPlan& plan) const override { plan.source_page_allowed = true; }

    Status collect(CollectorStage, ProfileSession& s) const override {
        for (auto& data : s.kernels) attach_source_pages(data, s.first_collection);
        return {};
    }
};

}  // namespace

std::unique_ptr<Collector> make_source_page_collector() { return std::make_unique<SourcePageCollector>(); }

}  // namespace kp::diagnose
