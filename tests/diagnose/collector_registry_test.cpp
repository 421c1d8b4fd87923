// The collectors as plug-ins: every registered one declares a name, what it provides, its stages
// and its cost; --collectors knows them from the registry; and a collector added to a registry is
// run by the profile at its stage, its data reaching the diagnosis.
#include <gtest/gtest.h>

#include <set>

#include "diagnose/collector_registry.h"
#include "diagnose/profile_session.h"
#include "profile_fixture.h"

using namespace kp::diagnose;
using namespace kp::testing;

TEST(CollectorRegistry, EveryCollectorDeclaresItselfOnce) {
    const auto& registry = default_collector_registry();
    std::set<std::string> names;
    for (const Collector* c : registry.all()) {
        EXPECT_TRUE(names.insert(std::string(c->name())).second) << "twice: " << c->name();
        EXPECT_FALSE(c->provides().empty()) << c->name();
        EXPECT_FALSE(c->stages().empty()) << c->name();
        EXPECT_GE(c->declared_cost().replay_passes, 0) << c->name();
        EXPECT_GE(c->declared_cost().seconds, 0.0) << c->name();
        EXPECT_NE(registry.name_list().find(std::string(c->name())), std::string::npos) << c->name();
        EXPECT_NE(render_collector_list().find(std::string(c->name())), std::string::npos) << c->name();
        EXPECT_EQ(registry.default_names().count(std::string(c->name())) > 0, c->on_by_default()) << c->name();
    }
    EXPECT_EQ(names, (std::set<std::string>{"ncu", "source", "pcsampling", "sass", "ptxas", "timeline", "occupancy"}));
    EXPECT_EQ(collector_list_json()["collectors"].size(), names.size());
    EXPECT_EQ(ProfileOptions().collectors, registry.default_names());
}

TEST(CollectorRegistry, PlainListReplacesPlusAddsMinusRemoves) {
    const auto& registry = default_collector_registry();
    const auto base = registry.default_names();
    EXPECT_FALSE(base.count("source")) << "the source page costs ~12 passes: opt-in";
    auto plus = registry.apply_list({"+source"}, base);
    ASSERT_TRUE(plus);
    EXPECT_TRUE(plus->enabled.count("source"));
    EXPECT_TRUE(plus->enabled.count("ncu"));
    EXPECT_EQ(plus->named, (std::set<std::string>{"source"}));
    auto minus = registry.apply_list({"-timeline", "-occupancy"}, base);
    ASSERT_TRUE(minus);
    EXPECT_FALSE(minus->enabled.count("timeline"));
    EXPECT_FALSE(minus->enabled.count("occupancy"));
    EXPECT_TRUE(minus->enabled.count("sass"));
    EXPECT_TRUE(minus->named.empty());
    auto plain = registry.apply_list({"sass", "timeline"}, base);
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->enabled, (std::set<std::string>{"sass", "timeline"}));
    EXPECT_TRUE(plain->named.count("timeline")) << "a named timeline runs whatever the number of kernels";
    auto bad = registry.apply_list({"+bogus"}, base);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown collector 'bogus'"), std::string::npos);
}

namespace {

// A collector written here, as a plug-in author would: a call whose 40 launches leave the GPU idle
// 60% of the time, attached to every kernel at the `call` stage (where the CUPTI timeline goes).
class IdleCallTimeline final : public Collector {
public:
    std::string_view name() const override { return "idle_call"; }
    std::string_view provides() const override { return "a timeline of 40 small launches, 60% idle"; }
    std::vector<CollectorStage> stages() const override { return {CollectorStage::call}; }
    kp::profile::CollectorCost declared_cost() const override { return {0, 0.0}; }
    void start(ProfileSession&) const override { ++started; }
    kp::Status collect(CollectorStage stage, ProfileSession& s) const override {
        EXPECT_EQ(stage, CollectorStage::call);
        kp::gpu::TimelineSummary t;
        t.calls = 1;
        t.kernels_per_call = 40;
        t.kernel_duration.total_ns = 40 * 4000;
        t.kernel_duration.median_ns = 4000;
        t.gpu_span_ns = 400000;
        for (auto& data : s.kernels) data.timeline = t;
        ++collected;
        return {};
    }
    mutable int started = 0, collected = 0;
};

}  // namespace

TEST(CollectorRegistry, ARegisteredCollectorRunsAtItsStageAndFeedsTheTools) {
    if (!have_nvcc()) GTEST_SKIP() << "no nvcc: the corpus kernel cannot be built";
    CollectorRegistry registry;
    for (auto& c : make_builtin_collectors()) registry.add(std::move(c));
    auto plugin = std::make_unique<IdleCallTimeline>();
    const IdleCallTimeline* added = plugin.get();
    registry.add(std::move(plugin));

    ProfileOptions options;
    options.ncu_csv = kCorpusFixtures + "healthy_copy_vec4.raw.csv";
    options.ceilings_file = kCorpusFixtures + "ceilings.json";
    options.collectors = {"ncu", "ptxas", "idle_call"};
    auto task = kp::load_task(kCorpus + "/task");
    ASSERT_TRUE(task) << task.error().message;
    kp::BuilderOptions build_options;
    build_options.arch = kp::detect_gpu_arch();
    kp::CandidateBuilder builder(build_options);
    auto build = builder.build({kCorpus + "/healthy_copy_vec4.cu", {}, task->libraries});
    ASSERT_TRUE(build && build->ok());

    auto with = profile_candidate_report(*task, *build, options, registry);
    ASSERT_TRUE(with) << with.error().message;
    EXPECT_EQ(added->started, 1);
    EXPECT_EQ(added->collected, 1);
    ASSERT_FALSE(with->kernels.empty());
    const auto& findings = with->kernels[0].diagnosis.findings;
    ASSERT_FALSE(findings.empty());
    EXPECT_EQ(findings[0].tool, "launch_overhead");  // the healthy copy has nothing else worth 60%

    options.collectors = {"ncu", "ptxas"};  // not enabled: not run
    auto without = profile_candidate_report(*task, *build, options, registry);
    ASSERT_TRUE(without) << without.error().message;
    EXPECT_EQ(added->collected, 1);
    for (const auto& f : without->kernels[0].diagnosis.findings) EXPECT_NE(f.tool, "launch_overhead");
}
