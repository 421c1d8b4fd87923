// The objective inside the real SearchDriver: with energy, the best node is the lowest joules per
// call among kernels within the allowed slowdown of the fastest; with time, the fastest; EDP
// trades both. The gains behind reward and pruning follow the same rule.
#include <gtest/gtest.h>

#include "driver_fixture.h"
#include "search/objective.h"

namespace kp::search {
namespace {

using synthetic::open_store;

// The baseline and four one-step variants: (median seconds, joules per call).
//   fast:   1.00 ms, 9 mJ   (the fastest)
//   near:   1.01 ms, 6 mJ   (1% slower, a third less energy: the energy winner at 2%)
//   slow:   1.30 ms, 4 mJ   (least energy, but 30% slower)
//   broken: wrong result, 1 mJ
class EnergyLandscape : public Evaluator {
public:
    Result<EvaluationOutcome> evaluate(const EvaluationRequest& request) override {
        static const std::map<std::string, std::pair<double, double>> table = {
            {"root", {2e-3, 20e-3}}, {"fast", {1e-3, 9e-3}}, {"near", {1.01e-3, 6e-3}}, {"slow", {1.3e-3, 4e-3}}};
        EvaluationOutcome o;
        if (request.candidate.source == "broken") {
            o.status = StatusClass::incorrect;
            o.joules_per_call = 1e-3;
            return o;
        }
        auto [seconds, joules] = table.at(request.candidate.source);
        o.median_seconds = seconds;
        o.joules_per_call = joules;
        o.roofline_fraction = 0.95;  // every kernel near its floor: only a time run stops on that
        return o;
    }
};

class OneStep : public Proposer {
public:
    Result<ProposalBatch> propose(const ProposalRequest& request) override {
        notes.push_back(request.objective_note);
        ProposalBatch batch;
        if (request.node.node_id != 0) return batch;
        for (const char* source : {"fast", "near", "slow", "broken"})
            batch.proposals.push_back({ProposalKind::rewrite, {source, {}}, source});
        return batch;
    }
    std::vector<std::string> notes;
};

// One run over the landscape; `limits` adds stop limits to the evaluation budget of 10.
Result<SearchOutcome> search_landscape(const std::string& objective, double max_slowdown, const StopLimits& limits = {},
                                       std::vector<std::string>* notes = nullptr) {
    auto db = std::filesystem::temp_directory_path() / ("objective_" + std::to_string(getpid()) + ".db");
    std::filesystem::remove(db);
    auto store = open_store(db);
    EnergyLandscape landscape;
    OneStep proposer;
    SearchDriver driver(store, landscape, proposer);
    auto config = synthetic::test_config(10);
    for (const auto& [name, limit] : limits) config.stop_limits[name] = limit;
    config.objective = {objective, max_slowdown};
    auto outcome = driver.start(synthetic::kTask, synthetic::kBaseline, config);
    EXPECT_TRUE(outcome.ok());
    std::filesystem::remove(db);
    if (notes) *notes = proposer.notes;
    return outcome;
}

std::string winner(const std::string& objective, double max_slowdown, std::vector<std::string>* notes = nullptr) {
    auto outcome = search_landscape(objective, max_slowdown, {}, notes);
    return outcome.ok() && outcome->best_candidate ? outcome->best_candidate->source : "";
}

TEST(Objective, TimePicksTheFastest) { EXPECT_EQ(winner("time", 0.02), "fast"); }

TEST(Objective, EnergyPicksTheLeastEnergyAtMatchedSpeed) {
    EXPECT_EQ(winner("energy", 0.02), "near");
    EXPECT_EQ(winner("energy", 0.5), "slow") << "a looser slowdown admits the slow kernel";
    EXPECT_EQ(winner("energy", 0.0), "fast");
}

TEST(Objective, EdpTradesEnergyAgainstTime) {
    // J x s: fast 9.0, near 6.06, slow 5.2 (x 1e-6): the slow kernel wins.
    EXPECT_EQ(winner("edp", 0.02), "slow");
}

TEST(Objective, ProposersAreToldTheObjectiveAndTheEnergy) {
    std::vector<std::string> notes;
    winner("energy", 0.02, &notes);
    ASSERT_FALSE(notes.empty());
    EXPECT_NE(notes[0].find("objective: energy"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("2.0%"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("20 mJ per call"), std::string::npos) << notes[0];
}

TEST(Objective, GainPenalizesEnergyBoughtWithTime) {
    EvaluationOutcome baseline, near, slow, failed;
    baseline.median_seconds = 1e-3;
    baseline.joules_per_call = 10e-3;
    near.median_seconds = 1.01e-3;
    near.joules_per_call = 5e-3;
    slow.median_seconds = 2e-3;
    slow.joules_per_call = 5e-3;
    failed.status = StatusClass::crash;
    ObjectiveRule energy{"energy", 0.02};
    EXPECT_DOUBLE_EQ(objective_gain(energy, near, &baseline, 1 / 1.01), 2.0);
    EXPECT_NEAR(objective_gain(energy, slow, &baseline, 0.5), 2.0 * 0.5 * 1.02, 1e-12);
    EXPECT_EQ(objective_gain(energy, failed, &baseline, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(objective_gain({"time", 0.02}, near, &baseline, 1 / 1.01), 1 / 1.01);
    EvaluationOutcome unmeasured;
    unmeasured.median_seconds = 0.5e-3;
    EXPECT_DOUBLE_EQ(objective_gain(energy, unmeasured, &baseline, 2.0), 2.0) << "no energy: the speedup";
}

TEST(Objective, ConfigRoundTripsAndRejectsUnknownObjectives) {
    SearchConfig config;
    config.objective = {"edp", 0.05};
    auto back = config_from_json(config_to_json(config));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->objective.name, "edp");
    EXPECT_DOUBLE_EQ(back->objective.max_slowdown, 0.05);
    auto json = config_to_json(config);
    json["objective"] = "watts";
    auto unknown = config_from_json(json);
    ASSERT_FALSE(unknown.ok());
    EXPECT_NE(unknown.error().message.find("unknown objective 'watts' (registered: edp, energy, time)"), std::string::npos)
        << unknown.error().message;
    json["objective"] = "energy";
    json["max_slowdown"] = -0.5;
    EXPECT_FALSE(config_from_json(json).ok()) << "a negative slowdown";
    json["max_slowdown"] = 0.05;
    json.erase("objective");
    auto old = config_from_json(json);
    ASSERT_TRUE(old.ok()) << "configs stored before objectives load as time";
    EXPECT_EQ(old->objective.name, "time");
}

// Every registered objective: a kernel equal to the baseline gains 1, a failed one 0, and a kernel
// better on every count (faster, less energy) gains more than 1.
TEST(Objective, EveryRegisteredObjectiveRanksTheObviousCases) {
    EXPECT_GE(objectives().names().size(), 3u);
    EvaluationOutcome baseline, better, failed;
    baseline.median_seconds = 1e-3;
    baseline.joules_per_call = 10e-3;
    better.median_seconds = 0.5e-3;
    better.joules_per_call = 4e-3;
    failed.status = StatusClass::incorrect;
    for (const auto& name : objectives().names()) {
        ObjectiveRule rule{name, 0.02};
        EXPECT_DOUBLE_EQ(objective_gain(rule, baseline, &baseline, 1.0), 1.0) << name;
        EXPECT_GT(objective_gain(rule, better, &baseline, 2.0), 1.0) << name;
        EXPECT_EQ(objective_gain(rule, failed, &baseline, 0.0), 0.0) << name;
        EXPECT_NE(describe_objective(rule).find(name), std::string::npos) << name;
    }
}

// The roofline target is a time target: a time run stops on it, an energy run goes on.
TEST(Objective, OnlyTimeRunsStopAtTheRooflineTarget) {
    for (const std::string objective : {"time", "energy"}) {
        auto outcome = search_landscape(objective, 0.02, {{"roofline_target", 0.9}});
        ASSERT_TRUE(outcome.ok());
        EXPECT_EQ(outcome->stop_reason.name() == "roofline_target", objective == "time")
            << objective << ": " << outcome->stop_reason.name();
    }
}

// The objective is stored with the run: a run stopped before it saw the energy winner and then
// resumed still picks by energy.
TEST(Objective, AResumedRunKeepsItsObjective) {
    auto db = std::filesystem::temp_directory_path() / ("objective_resume_" + std::to_string(getpid()) + ".db");
    std::filesystem::remove(db);
    auto store = open_store(db);
    EnergyLandscape landscape;
    OneStep proposer;
    auto config = synthetic::test_config(2);  // the baseline and "fast"
    config.objective = {"energy", 0.02};
    std::int64_t run_id = 0;
    {
        SearchDriver driver(store, landscape, proposer);
        auto first = driver.start(synthetic::kTask, synthetic::kBaseline, config);
        ASSERT_TRUE(first.ok());
        ASSERT_TRUE(first->best_candidate);
        EXPECT_EQ(first->best_candidate->source, "fast");
        run_id = first->run_id;
    }
    SearchDriver resumed(store, landscape, proposer);
    auto second = resumed.resume(run_id, ResumeOptions{{{"evaluation_budget", 10}}});
    ASSERT_TRUE(second.ok()) << second.error().message;
    ASSERT_TRUE(second->best_candidate);
    EXPECT_EQ(second->best_candidate->source, "near") << "the resumed run ranked by time";
    EXPECT_EQ(second->objective.name, "energy");
    std::filesystem::remove(db);
}

}  // namespace
}  // namespace kp::search
