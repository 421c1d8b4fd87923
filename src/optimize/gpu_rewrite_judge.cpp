#include "optimize/gpu_rewrite_judge.h"

#include "autoprofiler/tuning_record.h"
#include "build/gpu_arch.h"
#include "task/task_spec.h"
#include "optimize/run_settings.h"

namespace kp::optimize {

GpuRewriteJudge::GpuRewriteJudge(std::filesystem::path out_dir, int trials) : out_dir_(std::move(out_dir)), trials_(trials) {
    BuilderOptions build_options;
    build_options.arch = detect_gpu_arch();
    builder_ = std::make_unique<CandidateBuilder>(build_options);
    gpu_ = std::make_unique<kp::Evaluator>(*builder_);
}

Result<autoprofiler::RewriteVerdict> GpuRewriteJudge::judge(const autoprofiler::KernelRecord& kernel, const search::Candidate& rewrite) {
    if (!kernel.tuning) return make_error(kernel.name + ": not a tuning kernel (no task to judge a rewrite against)");
    const auto& table = *kernel.tuning;
    auto& evaluator = by_task_[table.task];
    if (!evaluator) {
        auto task = load_task(table.task_dir);
        if (!task) return task.error();
        auto options = search_evaluation_options(trials_, 1.0, 0.05);  // the search's defaults (run_recipe.h)
        evaluator = std::make_unique<GpuEvaluator>(*task, *gpu_, options, out_dir_ / table.task);
    }
    search::EvaluationRequest request;
    request.task = {table.task, ""};
    request.candidate = rewrite;
    request.evaluation_key = search::evaluation_key(request.task, rewrite);
    auto outcome = evaluator->evaluate(request);
    if (!outcome) return outcome.error();
    autoprofiler::RewriteVerdict verdict;
    verdict.correct = outcome->correct() && outcome->median_seconds.has_value();
    verdict.median_seconds = outcome->median_seconds.value_or(0);
    verdict.message = verdict.correct ? "" : std::string(search::status_class_name(outcome->status)) + ": " + outcome->message.substr(0, 300);
    return verdict;
}

}  // namespace kp::optimize
