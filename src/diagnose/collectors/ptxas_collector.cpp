// "ptxas": the resource report (registers, spills, shared memory, stack) nvcc's ptxas -v wrote into
// the build log. Free: no process, no GPU.
#include "diagnose/collector.h"
#include "diagnose/profile_session.h"
#include "profile/ptxas_collector.h"

namespace kp::diagnose {

namespace {

class PtxasCollector final : public Collector {
public:
    std::string_view name() const override { return "ptxas"; }
    std::string_view provides() const override { return "each kernel's registers, spill bytes, shared memory and stack frame"; }
    std::vector<CollectorStage> stages() const override { return {CollectorStage::build}; }
    profile::CollectorCost declared_cost() const override { return profile::PtxasCollector().cost(); }

    Status collect(CollectorStage, ProfileSession& s) const override {
        auto parsed = profile::parse_ptxas_report(s.build.ptxas_report);
        if (parsed && !parsed->functions.empty()) s.ptxas = std::move(*parsed);
        else s.report.notes.push_back("ptxas: no resource report in the build log");
        return {};
    }
};

}  // namespace

std::unique_ptr<Collector> make_ptxas_collector() { return std::make_unique<PtxasCollector>(); }

}  // namespace kp::diagnose
