// GpuEvaluator: the search's Evaluator on top of kp::Evaluator (build, guard, verify, time on the
// GPU). Each candidate's source is written under OUT/candidates/ (kp::Evaluator takes a path), its
// full evaluation report under OUT/evaluations/, and the report is mapped to an EvaluationOutcome:
// status class, median, speedup over the task reference, fraction of the roofline floor, the
// roofline class from the floor's binding resource, and compiler facts (registers, spills from
// ptxas -v) the tuner reads when no profiler findings are available.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "autoprofiler/profile_walk.h"
#include "eval/evaluator.h"
#include "diagnose/profile_options.h"
#include "eval/reverification.h"
#include "search/evaluator.h"
#include "task/task_spec.h"

namespace kp::optimize {

search::StatusClass status_class_of(FailureClass failure);

// The candidate's energy in a few numbers (joules per call, spread, watts, clock, throttling, idle
// power, the counter's period): what the search stores in details.energy and proposers read.
nlohmann::json energy_summary(const nlohmann::json& energy);

// The outcome the search sees for one report (no profiles: the profiler pipeline adds findings).
search::EvaluationOutcome outcome_from_report(const EvaluationReport& report);

class GpuEvaluator : public search::Evaluator {
public:
    GpuEvaluator(TaskSpec task, kp::Evaluator& evaluator, EvaluationOptions options, std::filesystem::path out_dir);

    Result<search::EvaluationOutcome> evaluate(const search::EvaluationRequest& request) override;

    // Where the candidate's source and its JSON report go, by evaluation key.
    std::filesystem::path source_path(const std::string& evaluation_key) const;
    std::filesystem::path report_path(const std::string& evaluation_key) const;

    // Called with a short line before each evaluation (for the CLI's progress display).
    void set_on_start(std::function<void(const search::EvaluationRequest&)> callback) { on_start_ = std::move(callback); }
    // Profile every correct candidate (kernelpro profile's two stages) and hand its roofline class
    // and ranked findings to the proposers; a profile that fails costs its findings, not the node.
    // With a tree, each kernel's walk of it picks the findings and renders the feedback.
    void enable_profiling(diagnose::ProfileOptions options, std::optional<autoprofiler::TreeChoice> tree = std::nullopt);
    // The run's best kernel once more, in a fresh worker with another seed, poison and layout.
    Result<Reverification> reverify(const std::filesystem::path& source) { return reverify_candidate(evaluator_, task_, source, options_); }

private:
    TaskSpec task_;
    kp::Evaluator& evaluator_;
    EvaluationOptions options_;
    std::filesystem::path out_dir_;
    std::function<void(const search::EvaluationRequest&)> on_start_;
    std::optional<diagnose::ProfileOptions> profile_options_;
    std::optional<autoprofiler::TreeChoice> profile_tree_;
};

}  // namespace kp::optimize
