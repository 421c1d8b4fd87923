// Renders a Diagnosis three ways: a terminal report for people (roofline summary, then ranked
// findings), JSON for the store and reports, and the compact text fed back to the LLM (top findings
// with their evidence and guidance, nothing else: raw counters hurt the LLM more than no profile).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnosis.h"

namespace kp::analysis {

std::string render_terminal_report(const Diagnosis& diagnosis);

nlohmann::json to_json(const RooflineResult& roofline);
nlohmann::json to_json(const Finding& finding);
nlohmann::json to_json(const Diagnosis& diagnosis);

struct LlmFeedbackOptions {
    size_t max_findings = 3;
    size_t max_evidence_per_finding = 3;
};
std::string render_llm_feedback(const Diagnosis& diagnosis, const LlmFeedbackOptions& options = {});

}  // namespace kp::analysis
