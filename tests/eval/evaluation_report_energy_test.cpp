// Energy in the evaluation report and in what the search sees of it: the worker's `energy` result
// (values written here in its format: two sides, three windows each, the counter's period and idle
// power) becomes the text table in millijoules and the JSON report's `energy`, and the search's
// outcome carries joules per call with the median watts and clock of the candidate's windows. A
// missing counter is one line and no energy, the evaluation otherwise unchanged.
#include <gtest/gtest.h>

#include "eval/evaluation_report_text.h"
#include "eval/evaluator.h"
#include "optimize/gpu_evaluator.h"

using namespace kp;

namespace {

nlohmann::json window(double joules, double seconds, int calls, double sm_clock_mhz, bool throttled) {
    return {{"calls", calls},
            {"seconds", seconds},
            {"joules", joules},
            {"joules_per_call", joules / calls},
            {"average_watts", joules / seconds},
            {"state", {{"sm_clock_mhz", sm_clock_mhz}, {"memory_clock_mhz", 2619}, {"throttled", throttled}}}};
}

nlohmann::json side(const std::vector<nlohmann::json>& windows, double median, double spread, int throttled) {
    return {{"joules_per_call", median},         {"joules_per_call_mean", median},
            {"joules_per_call_stddev", median * spread}, {"joules_per_call_min", median * 0.99},
            {"joules_per_call_max", median * 1.01}, {"relative_stddev", spread},
            {"calls_per_window", windows.front()["calls"]}, {"throttled_windows", throttled},
            {"windows", windows}};
}

EvaluationReport measured_report() {
    EvaluationReport report;
    report.status = FailureClass::Ok;
    report.timing = {{"candidate", {{"median_s", 20e-6}}}, {"baseline", {{"median_s", 50e-6}}}, {"speedup", 2.5}};
    report.energy = {
        {"available", true},
        {"counter_update_period_s", 0.02},
        {"window_seconds", 1.0},
        {"idle_watts", 120.5},
        {"windows", 3},
        {"baseline", side({window(400, 1.0, 20000, 1980, false), window(404, 1.0, 20000, 1980, false),
                           window(396, 1.0, 20000, 1965, false)},
                          20e-3, 0.01, 0)},
        {"candidate", side({window(350, 1.0, 50000, 1980, false), window(355, 1.01, 50000, 1755, true),
                            window(348, 1.0, 50000, 1980, false)},
                           7e-3, 0.012, 1)},
        {"energy_ratio", 20e-3 / 7e-3}};
    return report;
}

}  // namespace

TEST(EnergyReport, TheTextShowsMillijoulesPerCallWithTheirSpread) {
    std::string text = render_evaluation_text(measured_report());
    EXPECT_NE(text.find("mJ/call"), std::string::npos) << text;
    EXPECT_NE(text.find("candidate"), std::string::npos) << text;
    EXPECT_NE(text.find("          7 "), std::string::npos) << "7 mJ per call for the candidate:\n" << text;
    EXPECT_NE(text.find("counter updates every 20.0 ms, windows of 1.00 s, idle 120.5 W"), std::string::npos) << text;
    EXPECT_NE(text.find("the candidate uses 2.857x less energy per call"), std::string::npos) << text;
}

TEST(EnergyReport, TheJsonCarriesTheWorkersEnergyAndTheCandidatesJoules) {
    auto report = measured_report();
    auto j = report.to_json();
    ASSERT_TRUE(j.contains("energy"));
    EXPECT_EQ(j["energy"]["candidate"]["windows"].size(), 3u);
    EXPECT_DOUBLE_EQ(*report.candidate_joules_per_call(), 7e-3);
}

TEST(EnergyReport, TheSearchSeesJoulesWattsAndClockOfTheCandidatesWindows) {
    auto outcome = optimize::outcome_from_report(measured_report());
    ASSERT_TRUE(outcome.joules_per_call);
    EXPECT_DOUBLE_EQ(*outcome.joules_per_call, 7e-3);
    const auto& e = outcome.details["energy"];
    EXPECT_DOUBLE_EQ(e["average_watts"].get<double>(), 350.0) << "the median of 350, 351.5 and 348 W";
    EXPECT_DOUBLE_EQ(e["sm_clock_mhz"].get<double>(), 1980.0);
    EXPECT_EQ(e["throttled_windows"].get<int>(), 1);
    EXPECT_DOUBLE_EQ(e["idle_watts"].get<double>(), 120.5);
}

TEST(EnergyReport, AMissingCounterIsOneLineAndNoEnergy) {
    EvaluationReport report = measured_report();
    report.energy = {{"available", false}, {"reason", "NVML: nvmlDeviceGetTotalEnergyConsumption is not supported"}};
    std::string text = render_evaluation_text(report);
    EXPECT_NE(text.find("energy     not measured: NVML: nvmlDeviceGetTotalEnergyConsumption is not supported"), std::string::npos)
        << text;
    EXPECT_FALSE(report.candidate_joules_per_call());
    auto outcome = optimize::outcome_from_report(report);
    EXPECT_FALSE(outcome.joules_per_call);
    EXPECT_TRUE(outcome.correct()) << "the evaluation stands without energy";
    EXPECT_EQ(outcome.details["energy_error"], "NVML: nvmlDeviceGetTotalEnergyConsumption is not supported");
}
