// Unit tests of the search's small pieces: reward calibration, widening arithmetic, keys, JSON forms.
#include <gtest/gtest.h>

#include <cmath>

#include "search/candidate.h"
#include "search/reward.h"
#include "search/search_config.h"
#include "search/widening.h"
#include "synthetic_landscape.h"

using namespace kp::search;

TEST(Reward, CorrectnessIsAHardWall) {
    RewardCalibration calibration;
    EXPECT_EQ(calibrated_reward(calibration, false, 100.0), 0.0);
    EXPECT_GE(calibrated_reward(calibration, true, 0.001), calibration.correct_floor);
    EXPECT_GT(calibrated_reward(calibration, true, 0.001), calibrated_reward(calibration, false, 100.0));
}

TEST(Reward, IsLinearInLogSpeedupAndClipped) {
    RewardCalibration calibration{0.25, 16.0, 0.01};
    EXPECT_NEAR(calibrated_reward(calibration, true, 1.0), 1.0 / 3.0, 1e-12);  // ln4 / ln64
    const double step1 = calibrated_reward(calibration, true, 2.0) - calibrated_reward(calibration, true, 1.0);
    const double step2 = calibrated_reward(calibration, true, 4.0) - calibrated_reward(calibration, true, 2.0);
    EXPECT_NEAR(step1, step2, 1e-12);  // equal ratios, equal steps
    EXPECT_EQ(calibrated_reward(calibration, true, 16.0), 1.0);
    EXPECT_EQ(calibrated_reward(calibration, true, 1000.0), 1.0);
    EXPECT_EQ(calibrated_reward(calibration, true, 0.25), 0.01);
}

TEST(Reward, SpeedupOverBaselineUsesMedians) {
    auto outcome = synthetic::correct_outcome(4.0);  // median 0.25 ms
    EXPECT_NEAR(speedup_over_baseline(outcome, 1e-3), 4.0, 1e-12);
    EXPECT_NEAR(speedup_over_baseline(outcome, 0.5e-3), 2.0, 1e-12);
    EXPECT_NEAR(speedup_over_baseline(outcome, std::nullopt), 4.0, 1e-12);  // baseline failed
    EXPECT_EQ(speedup_over_baseline(synthetic::failed_outcome(StatusClass::incorrect), 1e-3), 0.0);
}

TEST(Widening, AllowedChildrenFollowsCeilKNAlpha) {
    WideningRule rule{2.0, 0.5};
    EXPECT_EQ(allowed_children(rule, 0), 0);
    EXPECT_EQ(allowed_children(rule, 1), 2);
    EXPECT_EQ(allowed_children(rule, 4), 4);    // exactly 2 * 2: no rounding up
    EXPECT_EQ(allowed_children(rule, 5), 5);    // 4.47 -> 5
    EXPECT_EQ(allowed_children(rule, 100), 20);
    WideningRule slow{1.0, 0.35};
    EXPECT_EQ(allowed_children(slow, 1), 1);
    EXPECT_EQ(allowed_children(slow, 8), 3);    // 2.07 -> 3
    EXPECT_EQ(allowed_children(slow, 100), 6);  // 5.01 -> 6
    WideningRule tiny{0.1, 0.1};
    EXPECT_EQ(allowed_children(tiny, 1), 1);    // every visited node may be refined once
}

TEST(Candidate, KeyDependsOnTaskSourceAndParams) {
    TaskIdentity task{"softmax", "abc"};
    Candidate a{"src", {{"BLOCK", "128"}}};
    Candidate b{"src", {{"BLOCK", "256"}}};
    EXPECT_EQ(evaluation_key(task, a), evaluation_key(task, a));
    EXPECT_NE(evaluation_key(task, a), evaluation_key(task, b));
    EXPECT_NE(evaluation_key(task, a), evaluation_key({"softmax", "other"}, a));
    EXPECT_NE(evaluation_key(task, a), evaluation_key(task, Candidate{"src2", a.params}));
    // A parameter left out is the source's #define: the baseline (no params) and a point that
    // names those values are one experiment; another value is another.
    const std::string tunable = "// kp:tune VEC=2,4\n#ifndef VEC\n#define VEC 4\n#endif\n";
    EXPECT_EQ(evaluation_key(task, Candidate{tunable, {}}), evaluation_key(task, Candidate{tunable, {{"VEC", "4"}}}));
    EXPECT_NE(evaluation_key(task, Candidate{tunable, {}}), evaluation_key(task, Candidate{tunable, {{"VEC", "2"}}}));
    auto params = params_from_json(params_to_json(a.params).dump());
    ASSERT_TRUE(params);
    EXPECT_EQ(*params, a.params);
}

TEST(SearchConfig, RoundTripsThroughJson) {
    SearchConfig config;
    config.strategy = "greedy";
    config.seed = 42;
    config.parameter_widening = {3.0, 0.6};
    config.stop_limits = {{"wall_time_budget", 10.0}};
    config.repairable = {StatusClass::compile_error, StatusClass::incorrect};
    config.memory_enabled = false;
    config.feedback = FeedbackKind::raw_metrics;
    auto back = config_from_json(config_to_json(config));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(config_to_json(*back), config_to_json(config));
    EXPECT_EQ(back->stop_limits, config.stop_limits);
    EXPECT_EQ(back->repairable.size(), 2u);
}

TEST(SearchConfig, RejectsNonsense) {
    auto json = config_to_json(SearchConfig{});
    json["strategy"] = "random";
    EXPECT_FALSE(config_from_json(json));
    json = config_to_json(SearchConfig{});
    json["reward"]["max_speedup"] = 0.1;
    EXPECT_FALSE(config_from_json(json));
}

TEST(EvaluationOutcome, RoundTripsThroughJson) {
    auto outcome = synthetic::correct_outcome(2.0, 0.4);
    outcome.details = {{"samples", 30}};
    auto back = outcome_from_json(outcome_to_json(outcome).dump());
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(outcome_to_json(*back), outcome_to_json(outcome));
    EXPECT_EQ(back->tool_names(), std::vector<std::string>{"uncoalesced_access"});
    EXPECT_FALSE(outcome_from_json(R"({"status":"weird"})"));
}
