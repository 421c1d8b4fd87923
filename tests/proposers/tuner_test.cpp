// The built-in tuner: parameter spaces, and moves going where synthetic findings point.
#include <gtest/gtest.h>

#include <set>

#include "search/proposers/parameter_space.h"
#include "search/proposers/random_proposers.h"
#include "search/proposers/tuner_proposer.h"

namespace kp::search {
namespace {

const char* kSource = R"(// test kernel
// kp:tune BLOCK=128,256,512
// kp:tune VEC=1,2,4
// kp:tune UNROLL=1,2,4
// kp:tune MINB=1,2
// kp:tune GRID=264,528,1056
// kp:constraint BLOCK*VEC <= 1024
#ifndef BLOCK
#define BLOCK 256
#endif
#define VEC 2
#define UNROLL 2
__global__ void k() {}
)";

TunableSpace space() {
    auto s = parse_tunables(kSource);
    EXPECT_TRUE(s.ok());
    return *s;
}

ProposalRequest request_with(EvaluationOutcome outcome, std::uint64_t seed = 1) {
    ProposalRequest r;
    r.task = {"synthetic", "fp"};
    r.node.candidate.source = kSource;
    r.node.evaluation = std::move(outcome);
    r.seed = seed;
    return r;
}

// A correct node whose profile found one problem: its typed remedies are what the tuner reads; the
// prose is deliberately unrelated to them.
EvaluationOutcome with_finding(const std::string& tool, std::vector<kp::analysis::Remedy> remedies, double gain = 0.5,
                               const std::string& summary = "reworded: nothing here names the problem") {
    EvaluationOutcome o;
    o.status = StatusClass::ok;
    o.median_seconds = 1e-3;
    Finding f;
    f.tool = tool;
    f.estimated_gain = gain;
    f.summary = summary;
    f.remedies = std::move(remedies);
    o.findings.push_back(std::move(f));
    return o;
}

using kp::analysis::Rewrite;

std::string first_move(const EvaluationOutcome& o, std::uint64_t seed = 1) {
    TunerProposer tuner;
    auto batch = tuner.propose(request_with(o, seed));
    EXPECT_TRUE(batch.ok());
    EXPECT_FALSE(batch->proposals.empty());
    return batch->proposals.empty() ? "" : batch->proposals.front().rationale;
}

TEST(ParameterSpace, RolesByName) {
    EXPECT_EQ(role_of("VEC"), ParameterRole::vector_width);
    EXPECT_EQ(role_of("UNROLL"), ParameterRole::work_per_thread);
    EXPECT_EQ(role_of("ROWS"), ParameterRole::work_per_thread);
    EXPECT_EQ(role_of("BLOCK"), ParameterRole::block_size);
    EXPECT_EQ(role_of("BX"), ParameterRole::block_size);
    EXPECT_EQ(role_of("MINB"), ParameterRole::min_blocks);
    EXPECT_EQ(role_of("GRID"), ParameterRole::grid_size);
    EXPECT_EQ(role_of("STAGES"), ParameterRole::pipeline_depth);
    EXPECT_EQ(role_of("COPIES"), ParameterRole::other);
}

TEST(ParameterSpace, ResolvesDefaultsFromDefines) {
    auto p = resolve_point(kSource, space(), {{"GRID", "528"}});
    EXPECT_EQ(p.at("BLOCK"), "256");
    EXPECT_EQ(p.at("VEC"), "2");
    EXPECT_EQ(p.at("UNROLL"), "2");
    EXPECT_EQ(p.at("MINB"), "1");  // no define: first value
    EXPECT_EQ(p.at("GRID"), "528");
}

TEST(ParameterSpace, EnumerationHonoursConstraints) {
    auto points = enumerate_points(space());
    // 3*3*3*2*3 = 162 minus BLOCK=512,VEC=4 (1*1*3*2*3 = 18)
    EXPECT_EQ(points.size(), 144u);
    std::set<std::string> unique;
    for (const auto& p : points) {
        EXPECT_TRUE(satisfies_constraints(space(), p));
        unique.insert(point_text(p));
    }
    EXPECT_EQ(unique.size(), points.size());
}

TEST(ParameterSpace, StepSkipsConstraintViolations) {
    ParameterValues p{{"BLOCK", "512"}, {"VEC", "2"}, {"UNROLL", "1"}, {"MINB", "1"}, {"GRID", "264"}};
    EXPECT_FALSE(step(space(), p, "VEC", +1).has_value());  // 512*4 > 1024
    auto down = step(space(), p, "VEC", -1);
    ASSERT_TRUE(down.has_value());
    EXPECT_EQ(down->to, "1");
    EXPECT_FALSE(step(space(), p, "BLOCK", +1).has_value());  // end of the list
}

TEST(Tuner, NarrowLoadsMoveVectorWidthUp) {
    auto r = first_move(with_finding("narrow_global_access", kp::analysis::wider_accesses(Rewrite::vectorize_accesses)));
    EXPECT_EQ(r.rfind("VEC 2->4", 0), 0u) << r;
}

// Under another objective the same move says what is being optimized; under time it says nothing more.
TEST(Tuner, TheRationaleNamesAnObjectiveOtherThanTime) {
    auto outcome = with_finding("narrow_global_access", kp::analysis::wider_accesses(Rewrite::vectorize_accesses));
    auto request = request_with(outcome, 1);
    request.objective = {"energy", 0.02};
    TunerProposer tuner;
    auto batch = tuner.propose(request);
    ASSERT_TRUE(batch.ok() && !batch->proposals.empty());
    const auto& rationale = batch->proposals.front().rationale;
    EXPECT_EQ(rationale.rfind("VEC 2->4", 0), 0u) << rationale;
    EXPECT_NE(rationale.find("[optimizing energy]"), std::string::npos) << rationale;
    EXPECT_EQ(first_move(outcome).find("[optimizing"), std::string::npos);
}

TEST(Tuner, SpillsMoveWorkPerThreadDown) {
    auto r = first_move(with_finding("register_spills", kp::analysis::fewer_registers()));
    EXPECT_EQ(r.rfind("UNROLL 2->1", 0), 0u) << r;
}

TEST(Tuner, CompilerSpillFactsWithoutFindings) {
    EvaluationOutcome o;
    o.median_seconds = 1e-3;
    o.details["compiler"] = compiler_facts_to_json({128, 64, 0});
    auto r = first_move(o);
    EXPECT_EQ(r.rfind("UNROLL 2->1", 0), 0u) << r;
}

TEST(Tuner, RegisterLimitedOccupancyRaisesMinBlocks) {
    EvaluationOutcome o;
    o.median_seconds = 1e-3;
    o.details["compiler"] = compiler_facts_to_json({168, 0, 0});
    auto r = first_move(o);
    EXPECT_EQ(r.rfind("MINB 1->2", 0), 0u) << r;
    auto f = first_move(with_finding("occupancy_limit", kp::analysis::more_occupancy(Rewrite::reduce_register_pressure)));
    EXPECT_EQ(f.rfind("MINB 1->2", 0), 0u) << f;
}

TEST(Tuner, TailEffectLowersWorkPerBlock) {
    TunerProposer tuner;
    auto batch = tuner.propose(request_with(with_finding("small_grid_tail", kp::analysis::finer_grid(Rewrite::whole_waves))));
    ASSERT_TRUE(batch.ok());
    ASSERT_GE(batch->proposals.size(), 3u);
    std::set<std::string> firsts;
    for (int i = 0; i < 3; ++i) firsts.insert(batch->proposals[i].rationale.substr(0, batch->proposals[i].rationale.find(':')));
    EXPECT_TRUE(firsts.count("UNROLL 2->1"));
    EXPECT_TRUE(firsts.count("GRID 264->528"));
    EXPECT_TRUE(firsts.count("BLOCK 256->128"));
}

TEST(Tuner, LessonsSteerTowardsWhatPaidOff) {
    EvaluationOutcome o;  // no diagnosis: exploration, unless a lesson says something
    o.median_seconds = 1e-3;
    auto req = request_with(o, 7);
    Lesson lesson;
    lesson.task_name = "synthetic";
    lesson.change_kind = ProposalKind::parameter_move;
    lesson.change_text = "GRID 264->528: exploration";
    lesson.speedup_ratio = 1.3;
    req.lessons.push_back(lesson);
    TunerProposer tuner;
    auto batch = tuner.propose(req);
    ASSERT_TRUE(batch.ok());
    ASSERT_FALSE(batch->proposals.empty());
    EXPECT_EQ(batch->proposals.front().candidate.params.at("GRID"), "528");
}

TEST(Tuner, DeterministicForASeedAndNeverRepeats) {
    EvaluationOutcome o;
    o.median_seconds = 1e-3;
    auto run = [&](std::uint64_t seed) {
        TunerProposer tuner;
        std::vector<std::string> points;
        for (int call = 0; call < 20; ++call) {
            auto req = request_with(o, seed + static_cast<std::uint64_t>(call));
            req.call_index = call;
            auto batch = tuner.propose(req);
            EXPECT_TRUE(batch.ok());
            for (const auto& p : batch->proposals) {
                EXPECT_TRUE(satisfies_constraints(space(), p.candidate.params));
                points.push_back(point_text(p.candidate.params));
            }
        }
        return points;
    };
    auto a = run(42), b = run(42);
    EXPECT_EQ(a, b);
    std::set<std::string> unique(a.begin(), a.end());
    EXPECT_EQ(unique.size(), a.size());
    EXPECT_FALSE(unique.count(point_text(resolve_point(kSource, space(), {}))));  // the node itself
    EXPECT_NE(run(43), a);
}

TEST(Tuner, SkipsLineagePoints) {
    auto o = with_finding("narrow_global_access", kp::analysis::wider_accesses(Rewrite::vectorize_accesses));
    auto req = request_with(o);
    NodeView parent;
    parent.candidate.source = kSource;
    parent.candidate.params = resolve_point(kSource, space(), {{"VEC", "4"}});
    req.lineage.push_back(parent);
    TunerProposer tuner;
    auto batch = tuner.propose(req);
    ASSERT_TRUE(batch.ok());
    for (const auto& p : batch->proposals) EXPECT_NE(p.candidate.params.at("VEC"), "4") << p.rationale;
}

TEST(Tuner, NoTunablesNoProposals) {
    TunerProposer tuner;
    ProposalRequest r;
    r.node.candidate.source = "__global__ void k() {}";
    auto batch = tuner.propose(r);
    ASSERT_TRUE(batch.ok());
    EXPECT_TRUE(batch->proposals.empty());
}

// The run remembers what was proposed (the driver answers is_known from its tree), so the
// proposer itself keeps no state and a resumed run goes on where it stopped.
TEST(Baselines, ExhaustiveCoversTheSpaceOnce) {
    ExhaustiveProposer exhaustive(50);
    std::set<std::string> seen;
    ProposalRequest r = request_with(EvaluationOutcome{});
    r.is_known = [&](const Candidate& c) { return seen.count(point_text(c.params)) > 0; };
    for (int call = 0; call < 10; ++call) {
        auto batch = exhaustive.propose(r);
        ASSERT_TRUE(batch.ok());
        for (const auto& p : batch->proposals) EXPECT_TRUE(seen.insert(point_text(p.candidate.params)).second);
    }
    EXPECT_EQ(seen.size(), 143u);  // all but the node's own point
    EXPECT_TRUE(exhaustive.propose(r)->proposals.empty());
}

TEST(Baselines, RandomIsSeededAndValid) {
    auto draw = [](std::uint64_t seed) {
        RandomSearchProposer random(5);
        auto r = request_with(EvaluationOutcome{}, seed);
        auto batch = random.propose(r);
        std::vector<std::string> out;
        for (const auto& p : batch->proposals) {
            EXPECT_TRUE(satisfies_constraints(space(), p.candidate.params));
            out.push_back(point_text(p.candidate.params));
        }
        return out;
    };
    EXPECT_EQ(draw(3), draw(3));
    EXPECT_EQ(draw(3).size(), 5u);
}

// Decisions read typed fields, not prose: a finding whose words say "spill", "tail" and "latency"
// but whose remedies widen accesses moves VEC up; the same words without remedies move nothing.
TEST(Tuner, ReactsToTypedRemediesNotToTheProse) {
    const std::string misleading = "registers spill to local memory; the tail wave hides latency";
    auto r = first_move(with_finding("narrow_global_access", kp::analysis::wider_accesses(Rewrite::vectorize_accesses), 0.5, misleading));
    EXPECT_EQ(r.rfind("VEC 2->4", 0), 0u) << r;
    EXPECT_NE(r.find("narrow_global_access"), std::string::npos) << r;  // the reason is the tool id
    EXPECT_TRUE(diagnose(with_finding("register_spills", {kp::analysis::rewrite_only(Rewrite::reduce_register_pressure)}, 0.5, misleading)).empty());
    EXPECT_TRUE(diagnose(with_finding("register_spills", {}, 0.5, misleading)).empty());
}

// The tuner weighs each remedy by its strength and the finding's gain: a stronger finding wins.
TEST(Tuner, StrongerFindingWins) {
    auto o = with_finding("register_spills", kp::analysis::fewer_registers(), 0.05);
    auto wide = with_finding("narrow_global_access", kp::analysis::wider_accesses(Rewrite::vectorize_accesses), 0.6);
    o.findings.push_back(wide.findings.front());
    EXPECT_EQ(first_move(o).rfind("VEC 2->4", 0), 0u) << first_move(o);
}

// What the store keeps and a resumed run reads back: the findings with their remedies; records
// written before remedies existed still read (and move nothing).
TEST(Tuner, StoredOutcomeKeepsTheRemedies) {
    auto o = with_finding("narrow_global_access", kp::analysis::wider_accesses(Rewrite::vectorize_accesses));
    auto back = outcome_from_json(outcome_to_json(o).dump());
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->findings.size(), 1u);
    EXPECT_EQ(back->findings[0].remedies.size(), o.findings[0].remedies.size());
    EXPECT_EQ(first_move(*back), first_move(o));
    auto old = outcome_from_json(R"({"status": "ok", "findings": [{"tool": "uncoalesced_access", "severity": 0.5,
                                     "message": "loads are uncoalesced", "data": {}}]})");
    ASSERT_TRUE(old) << old.error().message;
    ASSERT_EQ(old->findings.size(), 1u);
    EXPECT_EQ(old->findings[0].tool, "uncoalesced_access");
    EXPECT_TRUE(diagnose(*old).empty());
}

}  // namespace
}  // namespace kp::search
