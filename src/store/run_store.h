// The run store: one SQLite file (by default <project>/.kernelpro/runs.db) holding every run's
// nodes, evaluations, profiles, findings, proposals, LLM exchanges and search-memory lessons.
//
// Crash safety contract (what resume relies on):
//   - a node is inserted in state `pending` before its evaluation starts;
//   - record_evaluation() writes the evaluation, its findings/profiles/lesson, the node's `done`
//     state and the run's elapsed time in one transaction;
// so after any interruption (kill -9 included) every node is either `done` with exactly one
// evaluation, or `pending` with none, and resume re-runs exactly the pending ones.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "store/sqlite_database.h"
#include "store/store_records.h"

namespace kp::store {

struct LessonQuery {
    std::string task_name;
    std::string roofline_class;
    std::string tool_names;                    // sorted, comma-separated
    std::optional<std::int64_t> exclude_run_id;  // the current run (its lessons come separately)
    int limit = 8;
};

class RunStore {
public:
    // <project_directory>/.kernelpro/runs.db
    static std::filesystem::path default_path(const std::filesystem::path& project_directory);

    // Creates the parent directory and the file if needed, then migrates the schema to the latest
    // version. Fails with a clear message on a store written by a newer kernelpro.
    static Result<RunStore> open(const std::filesystem::path& path,
                                 Durability durability = Durability::power_loss_safe);
    // An existing store, for reading only (listing and showing runs where the folder is not
    // writable); fails when its schema is not the latest (opening it with `open` migrates it).
    static Result<RunStore> open_read_only(const std::filesystem::path& path);

    // --- runs ---
    // Creates the run and its baseline node (node 0, pending) in one transaction.
    Result<std::int64_t> create_run(const NewRun& run, const NodeRecord& baseline);
    Result<RunRecord> load_run(std::int64_t run_id);
    Result<std::vector<RunSummary>> list_runs();  // newest first
    Result<RunSummary> summarize_run(std::int64_t run_id);
    Status set_run_status(std::int64_t run_id, RunStatus status, const std::string& stop_reason,
                          double elapsed_seconds);
    Status update_run_config(std::int64_t run_id, const std::string& config_json);
    Status update_run_recipe(std::int64_t run_id, const std::string& recipe_json);

    // --- nodes and evaluations ---
    // Inserts a pending node; when it comes from a queued proposal, marks that proposal expanded
    // in the same transaction.
    Status add_pending_node(const NodeRecord& node, std::optional<std::int64_t> from_proposal_id = std::nullopt);
    Result<std::vector<NodeRecord>> load_nodes(std::int64_t run_id);  // by node_id
    // Idempotent: a second call for a node already `done` changes nothing and succeeds.
    Status record_evaluation(const CompletedEvaluation& completed);
    Result<std::vector<EvaluationRecord>> load_evaluations(std::int64_t run_id);  // commit order
    // The newest evaluation of this key in any run (a cache for identical candidates).
    Result<std::optional<EvaluationRecord>> find_evaluation_by_key(const std::string& evaluation_key);
    Status set_close_reason(std::int64_t run_id, std::int64_t node_id, const std::string& reason);

    // --- profiles and findings (also written by record_evaluation) ---
    Status record_profile(const ProfileRecord& profile);
    Status record_finding(const FindingRecord& finding);
    Result<std::vector<ProfileRecord>> load_profiles(std::int64_t run_id, std::int64_t node_id);
    Result<std::vector<FindingRecord>> load_findings(std::int64_t run_id, std::int64_t node_id);

    // --- proposals and LLM exchanges ---
    // One proposer call: its proposals (ids filled in), its LLM exchanges and the parent node's
    // proposer bookkeeping (calls made, the ExhaustedKinds bits), in one transaction.
    Status add_proposals(std::int64_t run_id, std::int64_t parent_node_id, std::vector<ProposalRecord>& proposals,
                         const std::vector<LlmExchangeRecord>& exchanges, std::int64_t proposer_calls,
                         std::int64_t proposer_exhausted);
    Result<std::vector<ProposalRecord>> load_proposals(std::int64_t run_id);  // creation order
    Status record_llm_exchange(const LlmExchangeRecord& exchange);
    Result<std::vector<LlmExchangeRecord>> load_llm_exchanges(std::int64_t run_id);
    Result<LlmTotals> llm_totals(std::int64_t run_id);

    // --- search memory ---
    Status record_lesson(const LessonRecord& lesson);
    Result<std::vector<LessonRecord>> lessons_of_run(std::int64_t run_id, int limit);  // newest first
    // Lessons from other runs: same task name, or same roofline class and tool set; newest first.
    Result<std::vector<LessonRecord>> similar_lessons(const LessonQuery& query);

    SqliteDatabase& database() { return database_; }

private:
    explicit RunStore(SqliteDatabase database) : database_(std::move(database)) {}
    Status insert_node(const NodeRecord& node);
    Status insert_profile(const ProfileRecord& profile);
    Status insert_finding(const FindingRecord& finding);
    Status insert_lesson(const LessonRecord& lesson);
    Status insert_llm_exchange(const LlmExchangeRecord& exchange);
    SqliteDatabase database_;
};

}  // namespace kp::store
