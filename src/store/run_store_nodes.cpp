// RunStore: nodes, evaluations, profiles and findings.
#include "store/run_store.h"

#include "store/collect_rows.h"

namespace kp::store {

namespace {

constexpr const char* kNodeColumns =
    "run_id, node_id, parent_id, proposal_kind, source, params_json, rationale, evaluation_key, state,"
    " proposer_calls, proposer_exhausted, close_reason, created_at";

NodeRecord read_node(const SqliteStatement& row) {
    NodeRecord node;
    node.run_id = row.column_int(0);
    node.node_id = row.column_int(1);
    node.parent_id = row.column_optional_int(2);
    node.proposal_kind = row.column_text(3);
    node.source = row.column_text(4);
    node.params_json = row.column_text(5);
    node.rationale = row.column_text(6);
    node.evaluation_key = row.column_text(7);
    node.state = row.column_text(8) == "done" ? NodeState::done : NodeState::pending;
    node.proposer_calls = row.column_int(9);
    node.proposer_exhausted = row.column_int(10);
    node.close_reason = row.column_text(11);
    node.created_at = row.column_text(12);
    return node;
}

constexpr const char* kEvaluationColumns =
    "run_id, node_id, evaluation_key, status_class, median_seconds, speedup, roofline_fraction, reward,"
    " outcome_json, created_at";

EvaluationRecord read_evaluation(const SqliteStatement& row) {
    EvaluationRecord evaluation;
    evaluation.run_id = row.column_int(0);
    evaluation.node_id = row.column_int(1);
    evaluation.evaluation_key = row.column_text(2);
    evaluation.status_class = row.column_text(3);
    evaluation.median_seconds = row.column_optional_double(4);
    evaluation.speedup = row.column_optional_double(5);
    evaluation.roofline_fraction = row.column_optional_double(6);
    evaluation.reward = row.column_double(7);
    evaluation.outcome_json = row.column_text(8);
    evaluation.created_at = row.column_text(9);
    return evaluation;
}

}  // namespace

Status RunStore::insert_node(const NodeRecord& node) {
    auto insert = database_.prepare(
        "INSERT INTO nodes (run_id, node_id, parent_id, proposal_kind, source, params_json, rationale,"
        " evaluation_key, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending')");
    if (!insert) return insert.error();
    insert->bind(1, node.run_id).bind(2, node.node_id).bind(3, node.parent_id).bind(4, node.proposal_kind);
    insert->bind(5, node.source).bind(6, node.params_json).bind(7, node.rationale).bind(8, node.evaluation_key);
    return insert->run();
}

Status RunStore::add_pending_node(const NodeRecord& node, std::optional<std::int64_t> from_proposal_id) {
    auto transaction = SqliteTransaction::begin(database_);
    if (!transaction) return transaction.error();
    if (auto status = insert_node(node); !status) return status.error();
    if (from_proposal_id) {
        auto update = database_.prepare("UPDATE proposals SET state = 'expanded', child_node_id = ? WHERE id = ?");
        if (!update) return update.error();
        update->bind(1, node.node_id).bind(2, *from_proposal_id);
        if (auto status = update->run(); !status) return status.error();
    }
    return transaction->commit();
}

Result<std::vector<NodeRecord>> RunStore::load_nodes(std::int64_t run_id) {
    auto query = database_.prepare(std::string("SELECT ") + kNodeColumns + " FROM nodes WHERE run_id = ? ORDER BY node_id");
    if (!query) return query.error();
    query->bind(1, run_id);
    return collect_rows<NodeRecord>(*query, read_node);
}

Status RunStore::record_evaluation(const CompletedEvaluation& completed) {
    const auto& evaluation = completed.evaluation;
    auto transaction = SqliteTransaction::begin(database_);
    if (!transaction) return transaction.error();

    auto state = database_.prepare("SELECT state FROM nodes WHERE run_id = ? AND node_id = ?");
    if (!state) return state.error();
    state->bind(1, evaluation.run_id).bind(2, evaluation.node_id);
    auto row = state->step();
    if (!row) return row.error();
    if (!*row)
        return make_error("record_evaluation: no node " + std::to_string(evaluation.node_id) + " in run " +
                          std::to_string(evaluation.run_id));
    if (state->column_text(0) == "done") return {};  // already durable: writing again would repeat it

    auto insert = database_.prepare(
        "INSERT INTO evaluations (run_id, node_id, evaluation_key, status_class, median_seconds, speedup,"
        " roofline_fraction, reward, outcome_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, evaluation.run_id).bind(2, evaluation.node_id).bind(3, evaluation.evaluation_key);
    insert->bind(4, evaluation.status_class).bind(5, evaluation.median_seconds).bind(6, evaluation.speedup);
    insert->bind(7, evaluation.roofline_fraction).bind(8, evaluation.reward).bind(9, evaluation.outcome_json);
    if (auto status = insert->run(); !status) return status.error();

    auto done = database_.prepare("UPDATE nodes SET state = 'done' WHERE run_id = ? AND node_id = ?");
    if (!done) return done.error();
    done->bind(1, evaluation.run_id).bind(2, evaluation.node_id);
    if (auto status = done->run(); !status) return status.error();

    for (const auto& profile : completed.profiles)
        if (auto status = insert_profile(profile); !status) return status.error();
    for (const auto& finding : completed.findings)
        if (auto status = insert_finding(finding); !status) return status.error();
    if (completed.lesson)
        if (auto status = insert_lesson(*completed.lesson); !status) return status.error();

    auto elapsed = database_.prepare(
        "UPDATE runs SET elapsed_seconds = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?");
    if (!elapsed) return elapsed.error();
    elapsed->bind(1, completed.run_elapsed_seconds).bind(2, evaluation.run_id);
    if (auto status = elapsed->run(); !status) return status.error();
    return transaction->commit();
}

Result<std::vector<EvaluationRecord>> RunStore::load_evaluations(std::int64_t run_id) {
    auto query = database_.prepare(std::string("SELECT ") + kEvaluationColumns +
                                   " FROM evaluations WHERE run_id = ? ORDER BY id");
    if (!query) return query.error();
    query->bind(1, run_id);
    return collect_rows<EvaluationRecord>(*query, read_evaluation);
}

Result<std::optional<EvaluationRecord>> RunStore::find_evaluation_by_key(const std::string& evaluation_key) {
    auto query = database_.prepare(std::string("SELECT ") + kEvaluationColumns +
                                   " FROM evaluations WHERE evaluation_key = ? ORDER BY id DESC LIMIT 1");
    if (!query) return query.error();
    query->bind(1, evaluation_key);
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return std::optional<EvaluationRecord>{};
    return std::optional<EvaluationRecord>{read_evaluation(*query)};
}

Status RunStore::set_close_reason(std::int64_t run_id, std::int64_t node_id, const std::string& reason) {
    auto update = database_.prepare("UPDATE nodes SET close_reason = ? WHERE run_id = ? AND node_id = ?");
    if (!update) return update.error();
    update->bind(1, reason).bind(2, run_id).bind(3, node_id);
    return update->run();
}

Status RunStore::insert_profile(const ProfileRecord& profile) {
    auto insert = database_.prepare("INSERT INTO profiles (run_id, node_id, kind, data_json) VALUES (?, ?, ?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, profile.run_id).bind(2, profile.node_id).bind(3, profile.kind).bind(4, profile.data_json);
    return insert->run();
}

Status RunStore::insert_finding(const FindingRecord& finding) {
    auto insert = database_.prepare(
        "INSERT INTO findings (run_id, node_id, tool, severity, message, data_json) VALUES (?, ?, ?, ?, ?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, finding.run_id).bind(2, finding.node_id).bind(3, finding.tool).bind(4, finding.severity);
    insert->bind(5, finding.message).bind(6, finding.data_json);
    return insert->run();
}

Status RunStore::record_profile(const ProfileRecord& profile) { return insert_profile(profile); }
Status RunStore::record_finding(const FindingRecord& finding) { return insert_finding(finding); }

Result<std::vector<ProfileRecord>> RunStore::load_profiles(std::int64_t run_id, std::int64_t node_id) {
    auto query = database_.prepare(
        "SELECT run_id, node_id, kind, data_json FROM profiles WHERE run_id = ? AND node_id = ? ORDER BY id");
    if (!query) return query.error();
    query->bind(1, run_id).bind(2, node_id);
    return collect_rows<ProfileRecord>(*query, [](const SqliteStatement& row) {
        return ProfileRecord{row.column_int(0), row.column_int(1), row.column_text(2), row.column_text(3)};
    });
}

Result<std::vector<FindingRecord>> RunStore::load_findings(std::int64_t run_id, std::int64_t node_id) {
    auto query = database_.prepare(
        "SELECT run_id, node_id, tool, severity, message, data_json FROM findings"
        " WHERE run_id = ? AND node_id = ? ORDER BY severity DESC, id");
    if (!query) return query.error();
    query->bind(1, run_id).bind(2, node_id);
    return collect_rows<FindingRecord>(*query, [](const SqliteStatement& row) {
        return FindingRecord{row.column_int(0),  row.column_int(1),  row.column_text(2),
                             row.column_double(3), row.column_text(4), row.column_text(5)};
    });
}

}  // namespace kp::store
