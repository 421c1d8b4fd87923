// What every registered stop rule must do: parametrized over the registry, so a new rule is held
// to it without a line of test code. The run here makes every measure grow (evaluations, wall
// time, LLM tokens and money, the best roofline fraction), so any rule that bounds one can fire.
#include <set>

#include "driver_fixture.h"
#include "search/stop_rule.h"

using namespace kp::search;
using namespace kp::search::synthetic;

namespace {

struct Run {
    StopReason reason;
    std::int64_t evaluations = 0;
    std::vector<std::optional<double>> measures;  // the rule's measure after each evaluation
    std::optional<double> final_measure;          // ... when the run ended (what the rule saw)
};

Run run_with(const StopRule& rule, const StopLimits& limits, const std::filesystem::path& db) {
    auto store = open_store(db);
    FunctionEvaluator evaluator(steadily_better);
    evaluator.delay = std::chrono::milliseconds(5);
    FunctionProposer proposer(uniform_children(2), 2);
    proposer.tokens_per_call = 100;
    proposer.cost_per_call = 0.25;
    SearchDriver driver(store, evaluator, proposer);
    auto config = test_config(1);
    config.stop_limits = limits;
    Run run;
    driver.set_progress_callback(
        [&](const SearchProgress& progress) { run.measures.push_back(rule.measure(progress.spend, driver.tree())); });
    auto outcome = driver.start(kTask, kBaseline, config);
    EXPECT_TRUE(outcome) << outcome.error().message;
    if (outcome)
        run = {outcome->stop_reason, outcome->spend.evaluations, run.measures, rule.measure(outcome->spend, driver.tree())};
    return run;
}

const StopRule& rule_named(const std::string& name) { return *stop_rules().find(name); }

}  // namespace

class EveryStopRule : public ::testing::TestWithParam<std::string> {};

// The limit is what the rule measured halfway through a 12-evaluation run; with only that rule
// (and a generous evaluation cap as a safety net) the run stops for that rule, before the cap.
TEST_P(EveryStopRule, StopsTheRunOnceItsMeasureReachesTheLimit) {
    kp::test_support::TempDirectory dir;
    const StopRule& rule = rule_named(GetParam());
    auto reference = run_with(rule, {{"evaluation_budget", 12}}, dir.path() / "reference.db");
    ASSERT_EQ(reference.measures.size(), 12u);
    ASSERT_TRUE(reference.measures[5]) << rule.name << " measured nothing in the reference run";
    const double limit = *reference.measures[5];
    ASSERT_GT(limit, 0);

    StopLimits limits{{rule.name, limit}};
    if (rule.name != "evaluation_budget") limits["evaluation_budget"] = 40;
    auto run = run_with(rule, limits, dir.path() / "limited.db");
    EXPECT_EQ(run.reason, (StopReason{StopKind::stop_rule, rule.name}));
    EXPECT_LT(run.evaluations, 40);
    EXPECT_GE(run.final_measure.value_or(0), limit);
}

TEST_P(EveryStopRule, DeclaresAFlagAndAValidDefault) {
    const StopRule& rule = rule_named(GetParam());
    EXPECT_EQ(rule.flag.rfind("--", 0), 0u) << rule.flag;
    EXPECT_FALSE(rule.help.empty());
    EXPECT_TRUE(rule.measure);
    if (rule.default_limit) {
        EXPECT_TRUE(check_stop_limits({{rule.name, *rule.default_limit}}));
        EXPECT_EQ(default_stop_limits().at(rule.name), *rule.default_limit);
    }
}

TEST_P(EveryStopRule, ItsLimitTravelsWithTheStoredConfigAndNonsenseIsRefused) {
    const StopRule& rule = rule_named(GetParam());
    SearchConfig config;
    config.stop_limits = {{rule.name, 7}};
    auto back = config_from_json(config_to_json(config));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->stop_limits, config.stop_limits);
    for (double bad : {-1.0, 0.0, std::numeric_limits<double>::infinity()})
        EXPECT_FALSE(check_stop_limits({{rule.name, bad}})) << bad;
    EXPECT_EQ(static_cast<bool>(check_stop_limits({{rule.name, 2.5}})), !rule.whole_number);
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryStopRule, ::testing::ValuesIn(stop_rules().names()),
                         [](const auto& info) { return info.param; });

TEST(StopRules, FlagsAreDistinctAndTheBuiltInsAreThere) {
    std::set<std::string> flags;
    for (const StopRule* rule : stop_rules().entries()) EXPECT_TRUE(flags.insert(rule->flag).second) << rule->flag;
    for (const char* name : {"evaluation_budget", "wall_time_budget", "token_budget", "cost_budget", "roofline_target"})
        EXPECT_NE(stop_rules().find(name), nullptr) << name;
    EXPECT_EQ(default_stop_limits(), (StopLimits{{"evaluation_budget", 64}, {"roofline_target", 0.9}}));
}

TEST(StopRules, AnUnknownRuleIsOneErrorNamingTheRegisteredOnes) {
    auto checked = check_stop_limits({{"patience", 3}});
    ASSERT_FALSE(checked);
    EXPECT_EQ(checked.error().message, "unknown stop rule 'patience' (registered: " + stop_rules().joined_names() + ")");
}

// Runs stored before stop rules kept their limits in fixed fields; they still load, the same.
TEST(StopRules, ConfigsStoredBeforeStopRulesStillLoad) {
    auto legacy = config_to_json(SearchConfig{});
    legacy.erase("stop_limits");
    legacy["budgets"] = {{"max_evaluations", 200}, {"max_wall_seconds", nullptr}, {"max_llm_tokens", 5000},
                         {"max_cost_usd", nullptr}};
    legacy["target_roofline_fraction"] = nullptr;
    auto config = config_from_json(legacy);
    ASSERT_TRUE(config) << config.error().message;
    EXPECT_EQ(config->stop_limits, (StopLimits{{"evaluation_budget", 200}, {"token_budget", 5000}}));
}
