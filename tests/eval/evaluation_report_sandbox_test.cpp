// The sandbox in the evaluation report: the text's `sandbox` line and the JSON's "sandbox" object
// say which layers candidate code ran under and why any is missing.
#include <gtest/gtest.h>

#include "eval/evaluation_report_text.h"
#include "eval/evaluator.h"
#include "sandbox/sandbox_report.h"

using namespace kp;

TEST(EvaluationReport, SaysWhichSandboxLayersWereThereAndWhyOneWasNot) {
    sandbox::SandboxReport layers;
    layers.set({"namespaces", sandbox::LayerState::active, "pid, network, ipc and mount namespaces (own /proc)"});
    layers.set({"landlock", sandbox::LayerState::unavailable, "this kernel has no Landlock (CONFIG_SECURITY_LANDLOCK)"});
    layers.set({"seccomp", sandbox::LayerState::active, "140 rules"});
    EvaluationReport report;
    report.status = FailureClass::RejectedBySandbox;
    report.message = "sandbox: execve(\"/bin/sh\") denied: starting programs is not allowed";
    report.sandbox = layers.to_json();
    std::string text = render_evaluation_text(report);
    EXPECT_NE(text.find("status     rejected_by_sandbox"), std::string::npos) << text;
    EXPECT_NE(text.find("sandbox    namespaces, seccomp; missing: landlock (unavailable: this kernel has no Landlock"), std::string::npos)
        << text;
    auto j = report.to_json();
    EXPECT_EQ(j["status"], "rejected_by_sandbox");
    EXPECT_FALSE(j["sandbox"]["complete"].get<bool>());
    EXPECT_EQ(j["sandbox"]["layers"][1]["state"], "unavailable");
}
