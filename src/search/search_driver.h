// The closed loop: select a node (MCTS or greedy), ask the proposer for changes, evaluate the new
// version, record everything in the run store, back the reward up, repeat until a budget, the
// roofline target (a stop rule) or the search space runs out.
//
// Crash safety: a node is stored `pending` before its evaluation and turned `done` in the same
// transaction that stores the evaluation. resume() rebuilds the tree by replaying the store,
// evaluates the pending nodes again (only those) and continues; with deterministic proposers and
// evaluator it ends with the same tree as an uninterrupted run.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "search/evaluator.h"
#include "search/proposer.h"
#include "search/run_recipe.h"
#include "search/search_budget.h"
#include "search/search_config.h"
#include "search/search_memory.h"
#include "search/search_progress.h"
#include "search/search_tree.h"
#include "search/stop_rule.h"
#include "store/run_store.h"

namespace kp::search {

struct SearchOutcome {
    std::int64_t run_id = 0;
    StopReason stop_reason;
    std::string stop_detail;  // the error message for *_error reasons
    std::optional<std::int64_t> best_node_id;
    std::optional<Candidate> best_candidate;
    double best_speedup_over_baseline = 0.0;
    std::optional<double> best_speedup;  // over the task reference
    std::optional<double> best_roofline_fraction;
    SearchSpend spend;
    std::int64_t nodes = 0;
    ObjectiveRule objective;  // the run's: what "best" meant
};

struct ResumeOptions {
    // Replace these stop limits (e.g. `runs resume --budget-evals 200` to extend a run); a limit of
    // 0 turns its rule off. Stored with the run, so a later resume keeps them.
    StopLimits stop_limits;
};

class SearchDriver {
public:
    SearchDriver(store::RunStore& store, Evaluator& evaluator, Proposer& proposer)
        : store_(store), evaluator_(evaluator), proposer_(proposer) {}

    void set_progress_callback(ProgressCallback callback) { progress_ = std::move(callback); }

    // Safe from another thread or a signal handler: the run stops after the current step, as
    // `interrupted`, and can be resumed.
    void request_stop() { stop_requested_.store(true); }

    // Creates a run in the store and searches. An error means the run could not even start;
    // everything later ends as a SearchOutcome with its stop reason. `recipe` (how the caller set
    // the loop up) is stored in the same transaction that creates the run.
    Result<SearchOutcome> start(const TaskIdentity& task, const Candidate& baseline, const SearchConfig& config,
                                const std::optional<RunRecipe>& recipe = std::nullopt);

    // Continues a stored run (after a crash, kill -9, Ctrl-C or an exhausted budget).
    Result<SearchOutcome> resume(std::int64_t run_id, const ResumeOptions& options = {});

    // The tree of the last start/resume, for reports and tests.
    const SearchTree& tree() const { return tree_; }
    std::int64_t run_id() const { return run_id_; }

private:
    struct StepFailure {
        StopReason reason;
        std::string message;
    };

    Status restore_from_store();
    SearchOutcome run_loop();
    SearchOutcome finish(StopReason reason, const std::string& detail);
    // Evaluates the nodes at once (one thread each when there are several), then records their
    // results in node order; the first failure stops the recording (later nodes stay pending).
    std::optional<StepFailure> evaluate_round(const std::vector<std::int64_t>& ids);
    std::optional<StepFailure> record_outcome(std::int64_t id, const Result<EvaluationOutcome>& outcome);
    // The new child's id; nullopt when nothing of the wanted kinds was available.
    Result<std::optional<std::int64_t>> expand(std::int64_t node_id, bool parameter_moves_wanted, bool rewrites_wanted);
    Status ask_proposer(std::int64_t node_id, bool parameter_moves_wanted, bool rewrites_wanted);
    void absorb_evaluation(std::int64_t id, const EvaluationOutcome& outcome);
    void persist_closures();
    NodeView view_of(std::int64_t id) const;
    SearchSpend current_spend() const;
    SearchProgress progress_for(std::int64_t id) const;

    store::RunStore& store_;
    Evaluator& evaluator_;
    Proposer& proposer_;
    ProgressCallback progress_;
    std::atomic<bool> stop_requested_{false};

    // State of the current session.
    std::int64_t run_id_ = 0;
    TaskIdentity task_;
    SearchConfig config_;
    SearchTree tree_;
    std::optional<double> baseline_median_seconds_;
    double elapsed_before_session_ = 0.0;
    double session_start_ = 0.0;  // monotonic seconds
    std::int64_t llm_tokens_ = 0;
    double cost_usd_ = 0.0;
};

}  // namespace kp::search
