#include "kernelbench/baseline_timing.h"

#include <fmt/format.h>

#include "common/files.h"

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

std::string baselines_line(const BaselineTimes& t) {
    auto ms = [](const std::optional<double>& s) { return s ? fmt::format("{:.4g} ms", *s * 1e3) : std::string("-"); };
    std::string line = fmt::format("eager {}, torch.compile {}, best {}", ms(t.eager), ms(t.compile), ms(t.best));
    if (auto x = t.speedup_over_eager()) line += fmt::format(": {:.2f}x over eager", *x);
    if (auto x = t.speedup_over_compile()) line += fmt::format(", {:.2f}x over compile", *x);
    return line;
}

std::string time_best_against_baselines(kp::Evaluator& evaluator, const TaskSpec& task, const std::filesystem::path& out_dir) {
    auto times = time_against_baselines(evaluator, task, out_dir / "best.cu");
    if (!times.ok()) return "the final timing against eager and torch.compile failed: " + times.error().message;
    (void)write_file_atomically(out_dir / "baselines.json", times->report.to_json().dump(2) + "\n");
    if (times->report.status != FailureClass::Ok) return "the final timing against eager and torch.compile: " + times->report.message;
    return "against PyTorch in one worker: " + baselines_line(*times);
}

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
