// What an Evaluator reports about one candidate. Every way a candidate can fail is a status class
// (a value), never an error: a crashing or cheating kernel costs one evaluation, not the run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/finding.h"
#include "common/result.h"

namespace kp::search {

enum class StatusClass {
    ok,
    compile_error,
    rejected_by_guard,
    crash,
    timeout,
    out_of_memory,
    incorrect,
    invalid_timing,
    rejected_by_sandbox,
};

const char* status_class_name(StatusClass status);
std::optional<StatusClass> parse_status_class(const std::string& text);

// One micro-profiling tool's diagnosis of the candidate: the profile's own finding type, with its
// tool id and typed remedies (what the tuner and the prompts act on).
using Finding = analysis::Finding;

struct EvaluationOutcome {
    StatusClass status = StatusClass::ok;
    std::optional<double> median_seconds;
    std::optional<double> speedup;            // over the task's reference, as the evaluator measures it
    std::optional<double> roofline_fraction;  // roofline floor time / measured time, in (0, 1]
    std::optional<double> joules_per_call;    // when energy was measured (median over the windows)
    std::string roofline_class;               // stage-1 diagnosis: memory_bound, compute_bound ...
    std::vector<Finding> findings;            // ranked micro-profiling findings
    std::string findings_summary;             // the feedback text proposers read
    std::string message;                      // failure detail: compiler error, mismatch ...
    nlohmann::json profiles = nlohmann::json::object();  // collector name -> raw data (stored apart)
    nlohmann::json details = nlohmann::json::object();   // anything else worth keeping

    bool correct() const { return status == StatusClass::ok; }
    // Sorted, unique tool names of the findings: the diagnosis' tool set.
    std::vector<std::string> tool_names() const;
};

// Everything but `profiles` (stored as separate rows) goes into the evaluation's JSON blob.
nlohmann::json outcome_to_json(const EvaluationOutcome& outcome);
Result<EvaluationOutcome> outcome_from_json(const std::string& text);

}  // namespace kp::search
