// Renders a Diagnosis three ways: a terminal report for people (roofline summary, then ranked
// findings), JSON for the store and reports, and the compact text fed back to the LLM (top findings
// with their evidence and guidance, nothing else: raw counters hurt the LLM more than no profile).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/call_profile.h"
#include "analysis/diagnosis.h"
#include "common/result.h"

namespace kp::analysis {

std::string render_terminal_report(const Diagnosis& diagnosis);

nlohmann::json to_json(const RooflineResult& roofline);
nlohmann::json to_json(const Finding& finding);
// The finding from its JSON form; also reads the search's older records (tool, severity as the
// gain, message as the summary, no remedies). An error for anything else.
Result<Finding> finding_from_json(const nlohmann::json& j);
nlohmann::json to_json(const Diagnosis& diagnosis);

struct LlmFeedbackOptions {
    size_t max_findings = 3;
    size_t max_evidence_per_finding = 3;
};
std::string render_llm_feedback(const Diagnosis& diagnosis, const LlmFeedbackOptions& options = {});

// The call above its kernels: each kernel's share of the call's time with its launch count, then
// the findings ranked by what they save on the whole call. Worth showing when the call launches
// more than one kernel or one kernel more than once (shows_more_than_one_kernel).
bool shows_more_than_one_kernel(const CallProfile& call);
std::string render_call_report(const CallProfile& call);
nlohmann::json to_json(const CallProfile& call);
// For the LLM: the kernels' shares in one line each, then the top findings by call gain, each
// naming its kernel, with its evidence (source lines first) and the fix.
std::string render_call_feedback(const CallProfile& call, const LlmFeedbackOptions& options = {});

// One finding as a proposer's prompt lists it: the tool, what is wrong, the fix, and its typed
// remedies ("change: ...; tunables: vector_width up (strong)").
std::string render_finding_for_prompt(const Finding& finding);
// "change: vectorize_accesses (load and store 16 bytes per thread); tunables: vector_width up
// (strong), work_per_thread up (weak)"; empty without remedies.
std::string render_remedies(const std::vector<Remedy>& remedies);

}  // namespace kp::analysis
