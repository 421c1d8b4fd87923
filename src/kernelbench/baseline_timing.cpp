#include "kernelbench/baseline_timing.h"

namespace kp::kernelbench {

namespace {
std::optional<double> median_of(const nlohmann::json& summary) {
    if (summary.is_object() && summary.contains("median") && summary["median"].is_number()) return summary["median"].get<double>();
    return std::nullopt;
}
std::optional<double> over(const std::optional<double>& baseline, const std::optional<double>& best) {
    if (baseline && best && *best > 0) return *baseline / *best;
    return std::nullopt;
}
}  // namespace

std::optional<double> BaselineTimes::speedup_over_eager() const { return over(eager, best); }
std::optional<double> BaselineTimes::speedup_over_compile() const { return over(compile, best); }

Result<BaselineTimes> time_against_baselines(kp::Evaluator& evaluator, const TaskSpec& task, const std::filesystem::path& kernel,
                                             bool compile_baseline, int trials, double max_seconds) {
    EvaluationOptions options;
    options.trials = trials;
    options.timing.stopping.max_seconds = max_seconds;
    options.compile_baseline = compile_baseline && task.reference.pytorch.has_value();
    auto report = evaluator.evaluate(task, kernel, options);
    if (!report.ok()) return report.error();
    BaselineTimes times;
    times.report = std::move(*report);
    const auto& timing = times.report.timing;
    if (times.report.status == FailureClass::Ok && timing.is_object()) {
        times.best = times.report.candidate_median_seconds();
        times.eager = median_of(timing.value("baseline", nlohmann::json()));
        if (timing.contains("extra_baselines")) times.compile = median_of(timing["extra_baselines"].value("compile", nlohmann::json()));
        if (timing.contains("fraction_of_floor") && timing["fraction_of_floor"].is_number())
            times.roofline_fraction = timing["fraction_of_floor"].get<double>();
    }
    return times;
}

}  // namespace kp::kernelbench
