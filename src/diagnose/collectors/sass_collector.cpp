// "sass": the built library's SASS (cuobjdump + nvdisasm, with line info), disassembled on its own
// thread while the counters are collected. No GPU.
#include "diagnose/collector.h"
#include "diagnose/profile_session.h"

namespace kp::diagnose {

namespace {

class SassCollector final : public Collector {
public:
    std::string_view name() const override { return "sass"; }
    std::string_view provides() const override { return "each kernel's SASS with file:line per instruction, and its instruction mix"; }
    std::vector<CollectorStage> stages() const override { return {CollectorStage::build}; }
    profile::CollectorCost declared_cost() const override { return profile::SassCollector().cost(); }

    void start(ProfileSession& s) const override {
        s.sass_future = std::async(std::launch::async, [&s]() -> SassOutcome {
            auto t0 = Clock::now();
            profile::SassCollector collector({}, {}, s.cache);
            profile::SassRequest request;
            request.binary = s.build.library;
            request.cache_key = s.build.key;
            request.refresh_cache = s.refresh;
            auto collected = collector.collect(request);
            return {std::move(collected), std::chrono::duration<double>(Clock::now() - t0).count()};
        });
        s.progress("sass: disassembling " + s.build.library.filename().string());
    }

    Status collect(CollectorStage, ProfileSession& s) const override {
        ChargeTime charge{s.report.collector_seconds["sass wait"]};
        auto [collected, seconds] = s.sass_future.get();
        s.report.collector_seconds["sass"] = seconds;
        if (!collected) {
            s.report.notes.push_back("sass: " + collected.error().message);
            return {};
        }
        if (collected->from_cache) s.report.cached.push_back("sass");
        s.sass = std::move(*collected);
        return {};
    }
};

}  // namespace

std::unique_ptr<Collector> make_sass_collector() { return std::make_unique<SassCollector>(); }

}  // namespace kp::diagnose
