// The single-shot-rewrite objective (issue 13 §3a, the paper's): for each tuning kernel
// (tuning_record.h: a task, a kp:tune candidate at a start point and the start's recorded time),
// the LLM's coder sees the start kernel and the tree's feedback on it and rewrites it once; a judge
// builds, checks and times the rewrite and the start (once per kernel, so both times come from
// the same GPU and session), and the kernel scores the rewrite's speedup over the start. A rewrite
// that fails (no code, a compile error, wrong results) scores 1: the optimizer keeps the start.
//
// Judges: on the GPU (optimize/gpu_rewrite_judge.h: kernelpro's evaluator), recording each verdict
// to a JSONL file; and that file replayed (recorded_rewrite_judge), so the mechanics run in CI.
// Each (kernel, feedback) pair is asked once: trees whose walks show the same feedback on a kernel
// share its rewrite, which keeps the learner's calls to the LLM to the distinct feedbacks seen.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "autoprofiler/objective.h"
#include "llm/llm_agents.h"
#include "search/candidate.h"

namespace kp::autoprofiler {

struct RewriteVerdict {
    bool correct = false;
    double median_seconds = 0;
    std::string message;  // why not correct
};

class RewriteJudge {
public:
    virtual ~RewriteJudge() = default;
    virtual std::string describe() const = 0;
    // An error only when the judge itself cannot answer (no GPU, a verdict not recorded); what the
    // rewrite does wrong is a verdict.
    virtual Result<RewriteVerdict> judge(const KernelRecord& kernel, const search::Candidate& rewrite) = 0;
};

// What identifies a rewrite in a verdict file: the kernel, the source's SHA-256 and its parameters.
std::string rewrite_key(const KernelRecord& kernel, const search::Candidate& rewrite);

// Replays verdicts from a JSONL file of {"key", "kernel", "correct", "median_seconds", "message"}
// lines (what recording_rewrite_judge writes); a rewrite it lacks is an error naming its key.
Result<std::shared_ptr<RewriteJudge>> recorded_rewrite_judge(const std::filesystem::path& verdicts);
// Asks `inner` and appends each verdict to `verdicts` (created if missing).
std::shared_ptr<RewriteJudge> recording_rewrite_judge(std::shared_ptr<RewriteJudge> inner, std::filesystem::path verdicts);

// The coder's request for one kernel: the task, the start kernel (its parameters stated), the
// tree's feedback as the findings.
llm::CoderInput rewrite_request(const KernelRecord& kernel, const std::string& feedback);

struct RewriteOutcome {
    double speedup = 1;     // start seconds / rewrite seconds; 1 when it failed
    bool correct = false;
    std::string key;        // rewrite_key; empty when the LLM gave no usable code
    std::string message;
};

class SingleShotRewrite : public Objective {
public:
    SingleShotRewrite(std::shared_ptr<const llm::LlmAgents> agents, std::shared_ptr<RewriteJudge> judge, double cost_weight = 0.05);
    std::string name() const override { return "single_shot_rewrite"; }
    bool reads_feedback() const override { return true; }
    // value = log2 of the geometric-mean speedup over the kernels with a table, minus cost_weight x
    // mean cost as a share of the budget. Needs the walks' feedback text (evaluate_tree with render).
    Score score(const std::vector<KernelRecord>& kernels, const std::vector<TreeOutcome>& outcomes, const Budget& budget) const override;
    // One kernel's rewrite given this feedback (asked once per pair); an error when the judge failed.
    Result<RewriteOutcome> rewrite(const KernelRecord& kernel, const std::string& feedback) const;
    int llm_calls() const { return calls_; }

private:
    std::shared_ptr<const llm::LlmAgents> agents_;
    std::shared_ptr<RewriteJudge> judge_;
    double cost_weight_;
    mutable std::mutex mutex_;
    mutable std::map<std::pair<std::string, std::string>, RewriteOutcome> asked_;
    mutable std::map<std::string, double> starts_;  // kernel -> its start's judged seconds
    mutable int calls_ = 0;
};

}  // namespace kp::autoprofiler
