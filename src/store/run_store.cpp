// RunStore: opening, runs and run summaries.
#include "store/run_store.h"

#include <system_error>

#include "store/schema_migrations.h"

namespace kp::store {

const char* run_status_name(RunStatus status) {
    switch (status) {
        case RunStatus::running: return "running";
        case RunStatus::finished: return "finished";
        case RunStatus::interrupted: return "interrupted";
        case RunStatus::failed: return "failed";
    }
    return "failed";
}

RunStatus parse_run_status(const std::string& text) {
    if (text == "running") return RunStatus::running;
    if (text == "finished") return RunStatus::finished;
    if (text == "interrupted") return RunStatus::interrupted;
    return RunStatus::failed;
}

std::filesystem::path RunStore::default_path(const std::filesystem::path& project_directory) {
    return project_directory / ".kernelpro" / "runs.db";
}

Result<RunStore> RunStore::open(const std::filesystem::path& path, Durability durability) {
    if (path.has_parent_path()) {
        std::error_code error;
        std::filesystem::create_directories(path.parent_path(), error);
        if (error) return make_error("cannot create " + path.parent_path().string() + ": " + error.message());
    }
    auto database = SqliteDatabase::open(path, durability);
    if (!database) return database.error();
    if (auto status = migrate(*database); !status) return status.error();
    return RunStore(std::move(*database));
}

Result<RunStore> RunStore::open_read_only(const std::filesystem::path& path) {
    auto database = SqliteDatabase::open_read_only(path);
    if (!database) return database.error();
    auto version = read_schema_version(*database);
    if (!version) return version.error();
    if (*version != latest_schema_version())
        return make_error("run store " + path.string() + " has schema version " + std::to_string(*version) +
                          " and cannot be upgraded here (read-only); this kernelpro reads version " +
                          std::to_string(latest_schema_version()));
    return RunStore(std::move(*database));
}

Result<std::int64_t> RunStore::create_run(const NewRun& run, const NodeRecord& baseline) {
    auto transaction = SqliteTransaction::begin(database_);
    if (!transaction) return transaction.error();
    auto insert = database_.prepare(
        "INSERT INTO runs (task_name, task_fingerprint, status, config_json, recipe_json) VALUES (?, ?, 'running', ?, ?)");
    if (!insert) return insert.error();
    insert->bind(1, run.task_name).bind(2, run.task_fingerprint).bind(3, run.config_json).bind(4, run.recipe_json);
    if (auto status = insert->run(); !status) return status.error();
    const std::int64_t run_id = database_.last_insert_rowid();
    NodeRecord root = baseline;
    root.run_id = run_id;
    root.node_id = 0;
    root.parent_id.reset();
    root.state = NodeState::pending;
    if (auto status = insert_node(root); !status) return status.error();
    if (auto status = transaction->commit(); !status) return status.error();
    return run_id;
}

namespace {
constexpr const char* kRunColumns =
    "id, task_name, task_fingerprint, status, stop_reason, config_json, elapsed_seconds, created_at, updated_at, "
    "recipe_json";

RunRecord read_run(const SqliteStatement& row) {
    RunRecord run;
    run.id = row.column_int(0);
    run.task_name = row.column_text(1);
    run.task_fingerprint = row.column_text(2);
    run.status = parse_run_status(row.column_text(3));
    run.stop_reason = row.column_text(4);
    run.config_json = row.column_text(5);
    run.elapsed_seconds = row.column_double(6);
    run.created_at = row.column_text(7);
    run.updated_at = row.column_text(8);
    run.recipe_json = row.column_text(9);
    return run;
}
}  // namespace

Result<RunRecord> RunStore::load_run(std::int64_t run_id) {
    auto query = database_.prepare(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?");
    if (!query) return query.error();
    query->bind(1, run_id);
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return make_error("no run " + std::to_string(run_id) + " in " + database_.path().string());
    return read_run(*query);
}

Result<RunSummary> RunStore::summarize_run(std::int64_t run_id) {
    auto run = load_run(run_id);
    if (!run) return run.error();
    RunSummary summary;
    summary.run = std::move(*run);
    auto counts = database_.prepare(
        "SELECT (SELECT count(*) FROM nodes WHERE run_id = ?1),"
        "       (SELECT count(*) FROM evaluations WHERE run_id = ?1),"
        "       (SELECT count(*) FROM nodes WHERE run_id = ?1 AND state = 'pending'),"
        "       (SELECT max(speedup) FROM evaluations WHERE run_id = ?1 AND status_class = 'ok'),"
        "       (SELECT coalesce(sum(tokens_in + tokens_out), 0) FROM llm_exchanges WHERE run_id = ?1),"
        "       (SELECT coalesce(sum(cost_usd), 0) FROM llm_exchanges WHERE run_id = ?1)");
    if (!counts) return counts.error();
    counts->bind(1, run_id);
    if (auto row = counts->step(); !row) return row.error();
    summary.nodes = counts->column_int(0);
    summary.evaluations = counts->column_int(1);
    summary.pending_nodes = counts->column_int(2);
    summary.best_speedup = counts->column_optional_double(3);
    summary.tokens = counts->column_int(4);
    summary.cost_usd = counts->column_double(5);
    return summary;
}

Result<std::vector<RunSummary>> RunStore::list_runs() {
    auto query = database_.prepare("SELECT id FROM runs ORDER BY id DESC");
    if (!query) return query.error();
    std::vector<std::int64_t> ids;
    while (true) {
        auto row = query->step();
        if (!row) return row.error();
        if (!*row) break;
        ids.push_back(query->column_int(0));
    }
    std::vector<RunSummary> summaries;
    for (auto id : ids) {
        auto summary = summarize_run(id);
        if (!summary) return summary.error();
        summaries.push_back(std::move(*summary));
    }
    return summaries;
}

Status RunStore::set_run_status(std::int64_t run_id, RunStatus status, const std::string& stop_reason,
                                double elapsed_seconds) {
    auto update = database_.prepare(
        "UPDATE runs SET status = ?, stop_reason = ?, elapsed_seconds = ?,"
        " updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?");
    if (!update) return update.error();
    update->bind(1, run_status_name(status)).bind(2, stop_reason).bind(3, elapsed_seconds).bind(4, run_id);
    return update->run();
}

Status RunStore::update_run_config(std::int64_t run_id, const std::string& config_json) {
    auto update = database_.prepare("UPDATE runs SET config_json = ? WHERE id = ?");
    if (!update) return update.error();
    update->bind(1, config_json).bind(2, run_id);
    return update->run();
}

Status RunStore::update_run_recipe(std::int64_t run_id, const std::string& recipe_json) {
    auto update = database_.prepare("UPDATE runs SET recipe_json = ? WHERE id = ?");
    if (!update) return update.error();
    update->bind(1, recipe_json).bind(2, run_id);
    return update->run();
}

}  // namespace kp::store
