// The learner: from a one-leaf tree, each round asks the proposers for edits, scores every edit on
// the training kernels within the budget, and accepts the best one only when it beats the current
// tree; it stops when no edit does (or after max_rounds). Every proposal, its score and the
// decision go to the learning log (SQLite, one row per proposal, one transaction per round), so an
// interrupted run resumes from its last accepted tree and round.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autoprofiler/objective.h"
#include "autoprofiler/tree_edit.h"
#include "store/sqlite_database.h"

namespace kp::autoprofiler {

struct LearningSettings {
    Budget budget;
    int max_rounds = 12;
    std::string start_actions;  // the one-leaf start's actions, comma-separated ("" none, "all" every action: today's full plan)
};

struct ProposalRow {
    int round = 0;
    std::string proposer, kind, description;
    double score = 0, hit_rate = 0, mean_seconds = 0, mean_passes = 0;
    bool accepted = false;
};

struct LearningResult {
    ProfilingTree tree;
    Score train, held_out;
    int rounds = 0;             // rounds completed, all runs of it together
    int resumed_from_round = 0; // 0: a fresh run
    int proposals = 0, accepted = 0;
};

// The log of learning runs: autoprofile_run (settings, state) and autoprofile_proposal.
class LearningLog {
public:
    static Result<LearningLog> open(const std::filesystem::path& path);
    // The run of this name: created with `settings_json`, or the existing one (its settings must match).
    Result<std::int64_t> run_for(const std::string& name, const std::string& settings_json);
    // The last accepted tree and the rounds done; nullopt tree when none was accepted yet.
    struct State {
        int rounds_done = 0;
        bool finished = false;
        std::optional<std::string> tree_toml;
    };
    Result<State> state(std::int64_t run_id);
    Status record_round(std::int64_t run_id, int round, const std::vector<ProposalRow>& rows, const std::optional<std::string>& accepted_tree,
                        bool finished);
    Result<std::vector<ProposalRow>> proposals(std::int64_t run_id);

private:
    explicit LearningLog(store::SqliteDatabase db) : db_(std::move(db)) {}
    store::SqliteDatabase db_;
};

// `stop_after_rounds` (tests): return after that many rounds of this call, as if interrupted.
Result<LearningResult> learn_tree(const std::vector<KernelRecord>& train, const std::vector<KernelRecord>& held_out, const CostTable& costs,
                                  const Objective& objective, std::vector<Proposer*> proposers, const LearningSettings& settings,
                                  LearningLog& log, const std::string& run_name, int stop_after_rounds = -1,
                                  const std::function<void(const std::string&)>& progress = {});

// Scores a tree on kernels (no text rendered).
Score score_tree(const ProfilingTree& tree, const std::vector<KernelRecord>& kernels, const CostTable& costs, const Objective& objective,
                 const Budget& budget);

}  // namespace kp::autoprofiler
