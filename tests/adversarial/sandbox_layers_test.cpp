// Each layer of the sandbox as the worker reports it, on this machine and with a layer missing
// (turned off through KERNELPRO_SANDBOX_DISABLE, or forced down another path by a test hook):
// what doctor and eval say then, and that --require-sandbox refuses before candidate code runs.
#include <gtest/gtest.h>

#include "../source_tree.h"
#include "common/process.h"
#include "eval/sandbox_probe.h"
#include "sandbox_fixture.h"

using namespace kp;
using namespace kp::testing;

namespace {
sandbox::SandboxReport probe() {
    WorkerOptions options;
    options.worker_executable = KP_WORKER_BINARY;
    auto report = probe_worker_sandbox(options);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
    return report.ok() ? *report : sandbox::SandboxReport{};
}

const sandbox::LayerStatus& layer(const sandbox::SandboxReport& report, const std::string& name) {
    static const sandbox::LayerStatus missing{"missing", sandbox::LayerState::unavailable, "not in the report"};
    const auto* l = report.find(name);
    return l ? *l : missing;
}

bool active(const sandbox::SandboxReport& report, const std::string& name) {
    return layer(report, name).state == sandbox::LayerState::active;
}
}  // namespace

TEST(SandboxLayers, EveryLayerIsReportedAndAMissingOneSaysWhy) {
    auto report = probe();
    ASSERT_EQ(report.layers.size(), 4u) << report.summary();
    for (const auto& l : report.layers) {
        std::printf("[sandbox] %-11s %-11s %s\n", l.name.c_str(), sandbox::layer_state_name(l.state), l.detail.c_str());
        EXPECT_FALSE(l.detail.empty()) << l.name;
    }
    EXPECT_TRUE(active(report, "seccomp")) << layer(report, "seccomp").detail;
    EXPECT_TRUE(active(report, "rlimits")) << layer(report, "rlimits").detail;
}

TEST(SandboxLayers, ADisabledLayerIsReportedAsDisabled) {
    ScopedEnvironment env;
    env.set("KERNELPRO_SANDBOX_DISABLE", "landlock,rlimits");
    auto report = probe();
    EXPECT_EQ(layer(report, "landlock").state, sandbox::LayerState::disabled);
    EXPECT_NE(layer(report, "landlock").detail.find("KERNELPRO_SANDBOX_DISABLE"), std::string::npos);
    EXPECT_EQ(layer(report, "rlimits").state, sandbox::LayerState::disabled);
    EXPECT_FALSE(report.complete());
    EXPECT_NE(report.missing().find("landlock (disabled"), std::string::npos) << report.missing();
}

TEST(SandboxLayers, WithoutLandlockTheSupervisorStillStopsAReadOutside) {
    ScopedEnvironment env;
    env.set("KERNELPRO_SANDBOX_DISABLE", "landlock");
    EscapeWorld world;
    auto outcome = run_in_sandbox(escape_library(3, 1));
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(outcome->status, FailureClass::RejectedBySandbox) << outcome->message;
    EXPECT_NE(outcome->message.find("/etc/passwd"), std::string::npos) << outcome->message;
}

TEST(SandboxLayers, WithoutSeccompLandlockStillBlocksAndNothingChanges) {
    ScopedEnvironment env;
    env.set("KERNELPRO_SANDBOX_DISABLE", "seccomp");
    if (!active(probe(), "landlock")) GTEST_SKIP() << "no Landlock here: " << layer(probe(), "landlock").detail;
    EscapeWorld world;
    auto outcome = run_in_sandbox(escape_library(5, 1));
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    // Unreported without the filter's supervisor, but blocked: the payload says it could not write.
    EXPECT_EQ(outcome->status, FailureClass::Ok) << outcome->message;
    EXPECT_EQ(outcome->result.value("returned", -1), 105);
    EXPECT_EQ(world.traces(), std::vector<std::string>{});
}

TEST(SandboxLayers, RequiredButIncompleteRefusesBeforeCandidateCodeRuns) {
    ScopedEnvironment env;
    env.set("KERNELPRO_SANDBOX_DISABLE", "all");
    EscapeWorld world;
    // With every layer off this candidate would create its file; refused, it never runs.
    auto outcome = run_in_sandbox(escape_library(5, 1), /*required=*/true);
    ASSERT_FALSE(outcome.ok());
    EXPECT_NE(outcome.error().message.find("--require-sandbox"), std::string::npos) << outcome.error().message;
    EXPECT_NE(outcome.error().message.find("seccomp (disabled"), std::string::npos) << outcome.error().message;
    EXPECT_EQ(world.traces(), std::vector<std::string>{});
}

TEST(SandboxLayers, TheUnprivilegedPathThroughAUserNamespace) {
    ScopedEnvironment env;
    env.set("KERNELPRO_SANDBOX_USER_NAMESPACE", "1");
    auto report = probe();
    const auto& ns = layer(report, "namespaces");
    std::printf("[sandbox] with a user namespace: %s: %s\n", sandbox::layer_state_name(ns.state), ns.detail.c_str());
    if (ns.state == sandbox::LayerState::active) EXPECT_EQ(ns.detail.rfind("user, pid", 0), 0u) << ns.detail;
    else EXPECT_NE(ns.detail.find("unshare"), std::string::npos) << ns.detail;  // user namespaces are off here: said so
    EscapeWorld world;
    auto outcome = run_in_sandbox(escape_library(8, 3));
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(outcome->status, FailureClass::RejectedBySandbox) << outcome->message;
}

TEST(SandboxLayers, AChildThatCannotUseTheNamespacesIsReplacedByOneWithout) {
    if (!active(probe(), "namespaces")) GTEST_SKIP() << "no namespaces here to leave: " << layer(probe(), "namespaces").detail;
    ScopedEnvironment env;
    env.set("KERNELPRO_SANDBOX_TEST_RETRY", "1");
    auto report = probe();
    const auto& ns = layer(report, "namespaces");
    EXPECT_EQ(ns.state, sandbox::LayerState::unavailable);
    EXPECT_NE(ns.detail.find("KERNELPRO_SANDBOX_TEST_RETRY"), std::string::npos) << ns.detail;
    EscapeWorld world;
    auto outcome = run_in_sandbox(escape_library(11, 1));  // /proc/<parent>/mem: the parent is visible now
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(outcome->status, FailureClass::RejectedBySandbox) << outcome->message;
    EXPECT_NE(outcome->message.find("another process"), std::string::npos) << outcome->message;
}

TEST(SandboxLayers, DoctorShowsEachLayerAndRequireSandboxFailsWithoutOne) {
    ScopedEnvironment env;
    env.set("KERNELPRO_WORKER", KP_WORKER_BINARY);
    env.set("KERNELPRO_SANDBOX_DISABLE", "rlimits");
    auto doctor = run_process({KP_KERNELPRO_BINARY, "doctor"});
    ASSERT_TRUE(doctor.ok()) << doctor.error().message;
    EXPECT_EQ(doctor->exit_code, 0) << doctor->stderr_text;
    EXPECT_NE(doctor->stdout_text.find("Sandbox for candidate code"), std::string::npos) << doctor->stdout_text;
    EXPECT_NE(doctor->stdout_text.find("disabled by KERNELPRO_SANDBOX_DISABLE"), std::string::npos) << doctor->stdout_text;
    EXPECT_NE(doctor->stdout_text.find("full sandbox         no: rlimits (disabled"), std::string::npos) << doctor->stdout_text;
    auto strict = run_process({KP_KERNELPRO_BINARY, "doctor", "--require-sandbox"});
    ASSERT_TRUE(strict.ok());
    EXPECT_EQ(strict->exit_code, 3);
    EXPECT_NE(strict->stderr_text.find("rlimits"), std::string::npos) << strict->stderr_text;
    auto json = run_process({KP_KERNELPRO_BINARY, "doctor", "--json"});
    ASSERT_TRUE(json.ok());
    auto j = nlohmann::json::parse(json->stdout_text, nullptr, false);
    ASSERT_TRUE(j.is_object()) << json->stdout_text;
    EXPECT_FALSE(j["sandbox"]["complete"].get<bool>());
    EXPECT_FALSE(j["ready"]["full_sandbox"].get<bool>());
}

TEST(SandboxLayers, EvalWithRequireSandboxExits3BeforeTheCandidateRuns) {
    ScopedEnvironment env;
    env.set("KERNELPRO_WORKER", KP_WORKER_BINARY);
    env.set("KERNELPRO_SANDBOX_DISABLE", "landlock");
    std::string dir = kp::testing::source_path("tests/adversarial").string();
    auto eval = run_process({KP_KERNELPRO_BINARY, "eval", dir + "/task", dir + "/ok_warp_per_row.cu", "--require-sandbox", "-q"});
    ASSERT_TRUE(eval.ok()) << eval.error().message;
    EXPECT_EQ(eval->exit_code, 3) << eval->stdout_text << eval->stderr_text;
    EXPECT_NE(eval->stderr_text.find("landlock (disabled"), std::string::npos) << eval->stderr_text;
}
