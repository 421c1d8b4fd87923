// The single-shot-rewrite objective's judge on the GPU (autoprofiler/single_shot_rewrite.h): each
// rewrite is evaluated as a search evaluates a candidate (built, guarded, checked against the
// task's reference, timed with the search's settings), under OUT/<task>/.
#pragma once

#include <filesystem>
#include <map>
#include <memory>

#include "autoprofiler/single_shot_rewrite.h"
#include "build/candidate_builder.h"
#include "eval/evaluator.h"
#include "optimize/gpu_evaluator.h"

namespace kp::optimize {

class GpuRewriteJudge : public autoprofiler::RewriteJudge {
public:
    explicit GpuRewriteJudge(std::filesystem::path out_dir, int trials = 3);
    std::string describe() const override { return "the GPU (kernelpro's evaluator)"; }
    Result<autoprofiler::RewriteVerdict> judge(const autoprofiler::KernelRecord& kernel, const search::Candidate& rewrite) override;

private:
    std::filesystem::path out_dir_;
    int trials_;
    std::unique_ptr<CandidateBuilder> builder_;
    std::unique_ptr<kp::Evaluator> gpu_;
    std::map<std::string, std::unique_ptr<GpuEvaluator>> by_task_;
};

}  // namespace kp::optimize
