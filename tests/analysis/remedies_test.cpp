// Typed remedies: every finding on the recorded H200 kernels says what to change and, where a
// tunable parameter can approximate it, which role moves which way; no finding pushes one role
// both ways (small_grid_tail's "several blocks per SM to hide latency" used to add latency hints
// that raised work per thread against its own tail hints); the JSON form keeps them.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis.h"
#include "analysis/feedback.h"
#include "fixture_profiles.h"

using namespace kp::analysis;
using kp::testing::fixture_profile;
using kp::testing::fixture_kernel_names;

namespace {

std::vector<Finding> every_finding() {
    std::vector<Finding> out;
    DiagnosisOptions options;
    options.gate_by_class = false;
    options.min_gain = 0.0;
    options.max_findings = 100;
    for (const auto& kernel : fixture_kernel_names()) {
        auto d = diagnose(fixture_profile(kernel), default_tool_registry(), options);
        EXPECT_TRUE(d) << kernel;
        if (d) out.insert(out.end(), d->findings.begin(), d->findings.end());
    }
    return out;
}

}  // namespace

TEST(Remedies, EveryFindingSaysWhatToChange) {
    auto findings = every_finding();
    ASSERT_GE(findings.size(), 10u);
    for (const auto& f : findings) {
        EXPECT_FALSE(f.remedies.empty()) << f.tool;
        for (const auto& r : f.remedies) {
            EXPECT_GT(r.strength, 0.0) << f.tool;
            EXPECT_LE(r.strength, 1.0) << f.tool;
            if (r.role != ParameterRole::other) {
                EXPECT_TRUE(r.direction == 1 || r.direction == -1) << f.tool;
            }
            EXPECT_TRUE(parse_rewrite(rewrite_name(r.rewrite))) << f.tool;
        }
    }
}

TEST(Remedies, NoFindingPushesARoleBothWays) {
    for (const auto& f : every_finding()) {
        std::map<ParameterRole, int> direction;
        for (const auto& r : f.remedies) {
            if (!r.moves_a_parameter()) continue;
            auto [it, fresh] = direction.emplace(r.role, r.direction);
            EXPECT_TRUE(fresh || it->second == r.direction) << f.tool << ": " << parameter_role_name(r.role) << " both up and down";
        }
    }
}

TEST(Remedies, SmallGridAsksForLessWorkPerThreadAndMoreBlocks) {
    auto d = diagnose(fixture_profile("small_grid_fma"));
    ASSERT_TRUE(d);
    ASSERT_FALSE(d->findings.empty());
    const Finding& f = d->findings.front();
    ASSERT_EQ(f.tool, "small_grid_tail");
    bool less_work = false, more_blocks = false;
    for (const auto& r : f.remedies) {
        if (r.role == ParameterRole::work_per_thread) {
            EXPECT_EQ(r.direction, -1) << "work per thread goes down for a grid too small for the GPU";
            less_work = true;
        }
        more_blocks = more_blocks || (r.role == ParameterRole::grid_size && r.direction == +1);
    }
    EXPECT_TRUE(less_work);
    EXPECT_TRUE(more_blocks);
    // Its prose still says why several blocks per SM help; that no longer reaches any decision.
    EXPECT_NE(f.guidance.find("latency"), std::string::npos);
}

TEST(Remedies, JsonKeepsThemAndOldRecordsStillRead) {
    Finding f;
    f.tool = "narrow_global_access";
    f.estimated_gain = 0.3;
    f.summary = "narrow";
    f.remedies = wider_accesses(Rewrite::vectorize_accesses);
    f.remedies.push_back(rewrite_only(Rewrite::vectorize_accesses));
    auto back = finding_from_json(nlohmann::json::parse(to_json(f).dump()));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->tool, f.tool);
    EXPECT_DOUBLE_EQ(back->estimated_gain, 0.3);
    ASSERT_EQ(back->remedies.size(), f.remedies.size());
    for (size_t i = 0; i < f.remedies.size(); ++i) {
        EXPECT_EQ(back->remedies[i].rewrite, f.remedies[i].rewrite);
        EXPECT_EQ(back->remedies[i].role, f.remedies[i].role);
        EXPECT_EQ(back->remedies[i].direction, f.remedies[i].direction);
        EXPECT_DOUBLE_EQ(back->remedies[i].strength, f.remedies[i].strength);
    }
    auto old = finding_from_json({{"tool", "uncoalesced_access"}, {"severity", 0.5}, {"message", "loads are uncoalesced"}, {"data", {}}});
    ASSERT_TRUE(old) << old.error().message;
    EXPECT_DOUBLE_EQ(old->estimated_gain, 0.5);
    EXPECT_EQ(old->summary, "loads are uncoalesced");
    EXPECT_TRUE(old->remedies.empty());
    EXPECT_FALSE(finding_from_json(nlohmann::json::array()));
    EXPECT_FALSE(remedy_from_json({{"rewrite", "no_such_rewrite"}}));
}

TEST(Remedies, PromptsListTheTypedRemedies) {
    Finding f;
    f.tool = "narrow_global_access";
    f.summary = "global memory is accessed with 32-bit instructions";
    f.guidance = "Load and store 16 bytes per thread.";
    f.remedies = wider_accesses(Rewrite::vectorize_accesses);
    const std::string line = render_finding_for_prompt(f);
    EXPECT_EQ(line.rfind("narrow_global_access: ", 0), 0u) << line;
    EXPECT_NE(line.find("change: vectorize_accesses"), std::string::npos) << line;
    EXPECT_NE(line.find("tunables: vector_width up (strong), work_per_thread up (weak)"), std::string::npos) << line;
    Diagnosis d;
    d.kernel_name = "k";
    d.findings = {f};
    EXPECT_NE(render_llm_feedback(d).find("change: vectorize_accesses"), std::string::npos);
}
