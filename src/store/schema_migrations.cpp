#include "store/schema_migrations.h"

namespace kp::store {

namespace {

// Version 1: the closed loop's records. Timestamps are UTC ISO-8601 text, so they sort and read.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE runs (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    task_name        TEXT NOT NULL,
    task_fingerprint TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,              -- running | finished | interrupted | failed
    stop_reason      TEXT NOT NULL DEFAULT '',
    config_json      TEXT NOT NULL,
    elapsed_seconds  REAL NOT NULL DEFAULT 0,    -- search wall time, summed over sessions
    created_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE nodes (
    run_id             INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    node_id            INTEGER NOT NULL,         -- 0 is the baseline; then creation order
    parent_id          INTEGER,                  -- NULL for the baseline
    proposal_kind      TEXT NOT NULL,            -- baseline | parameter_move | rewrite
    source             TEXT NOT NULL,
    params_json        TEXT NOT NULL,
    rationale          TEXT NOT NULL DEFAULT '',
    evaluation_key     TEXT NOT NULL,            -- hash(task, source, params)
    state              TEXT NOT NULL,            -- pending (evaluation not committed) | done
    proposer_calls     INTEGER NOT NULL DEFAULT 0,
    proposer_exhausted INTEGER NOT NULL DEFAULT 0,
    close_reason       TEXT NOT NULL DEFAULT '', -- informational; the search recomputes it
    created_at         TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (run_id, node_id),
    UNIQUE (run_id, evaluation_key)
);
CREATE TABLE evaluations (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id            INTEGER NOT NULL,
    node_id           INTEGER NOT NULL,
    evaluation_key    TEXT NOT NULL,
    status_class      TEXT NOT NULL,
    median_seconds    REAL,
    speedup           REAL,
    roofline_fraction REAL,
    reward            REAL NOT NULL DEFAULT 0,
    outcome_json      TEXT NOT NULL,
    created_at        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (run_id, node_id),
    FOREIGN KEY (run_id, node_id) REFERENCES nodes(run_id, node_id) ON DELETE CASCADE
);
CREATE INDEX evaluations_by_key ON evaluations(evaluation_key);
CREATE TABLE profiles (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    node_id    INTEGER NOT NULL,
    kind       TEXT NOT NULL,                    -- collector name: ncu, sass, ptxas, timeline ...
    data_json  TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    FOREIGN KEY (run_id, node_id) REFERENCES nodes(run_id, node_id) ON DELETE CASCADE
);
CREATE TABLE findings (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id     INTEGER NOT NULL,
    node_id    INTEGER NOT NULL,
    tool       TEXT NOT NULL,
    severity   REAL NOT NULL DEFAULT 0,          -- estimated gain, for ranking
    message    TEXT NOT NULL,
    data_json  TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    FOREIGN KEY (run_id, node_id) REFERENCES nodes(run_id, node_id) ON DELETE CASCADE
);
CREATE TABLE proposals (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id         INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    parent_node_id INTEGER NOT NULL,
    kind           TEXT NOT NULL,                -- parameter_move | rewrite
    source         TEXT NOT NULL,
    params_json    TEXT NOT NULL,
    rationale      TEXT NOT NULL DEFAULT '',
    evaluation_key TEXT NOT NULL,
    state          TEXT NOT NULL,                -- queued | expanded | duplicate
    child_node_id  INTEGER,
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX proposals_by_run ON proposals(run_id, parent_node_id);
CREATE TABLE llm_exchanges (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    node_id         INTEGER,                     -- the node the exchange was about, if any
    agent           TEXT NOT NULL DEFAULT '',
    model           TEXT NOT NULL DEFAULT '',
    prompt          TEXT NOT NULL,
    reply           TEXT NOT NULL,
    tokens_in       INTEGER NOT NULL DEFAULT 0,
    tokens_out      INTEGER NOT NULL DEFAULT 0,
    latency_seconds REAL NOT NULL DEFAULT 0,
    cost_usd        REAL NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX llm_exchanges_by_run ON llm_exchanges(run_id);
)sql";

// Version 2: search memory. Lessons outlive their run (ON DELETE SET NULL), since they are what
// later runs on similar tasks learn from.
constexpr const char* kVersion2 = R"sql(
CREATE TABLE lessons (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id         INTEGER REFERENCES runs(id) ON DELETE SET NULL,
    node_id        INTEGER,
    task_name      TEXT NOT NULL,
    roofline_class TEXT NOT NULL DEFAULT '',
    tool_names     TEXT NOT NULL DEFAULT '',     -- sorted, comma-separated: a set as a key
    change_kind    TEXT NOT NULL,
    change_text    TEXT NOT NULL,
    speedup_ratio  REAL,                         -- child over parent, when the child was correct
    failure_class  TEXT,                         -- status class, when it was not
    created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX lessons_by_task ON lessons(task_name);
CREATE INDEX lessons_by_diagnosis ON lessons(roofline_class, tool_names);
)sql";

// Version 3: the run recipe (search/run_recipe.h): task path, proposers, LLM settings (no keys),
// evaluation and profile settings, output folder and store, so resume rebuilds the same loop.
// Runs stored before keep '' and resume the way they always did.
constexpr const char* kVersion3 = R"sql(
ALTER TABLE runs ADD COLUMN recipe_json TEXT NOT NULL DEFAULT '';
)sql";

// Version 4: a node's proposer is exhausted per proposal kind (1 parameter moves, 2 rewrites), so
// a proposer asked only for moves that has none still gets asked for rewrites. The old "exhausted"
// meant both.
constexpr const char* kVersion4 = R"sql(
UPDATE nodes SET proposer_exhausted = 3 WHERE proposer_exhausted <> 0;
)sql";

// Version 5: the tool calls an LLM reply made (code search), with the results kernelpro sent back.
constexpr const char* kVersion5 = R"sql(
ALTER TABLE llm_exchanges ADD COLUMN tool_calls TEXT NOT NULL DEFAULT '';
)sql";

// Version 6: the profiling-tree learner's runs and every proposal it scored (autoprofiler/
// learning_run.h), so `autoprofile learn --store` keeps them beside the optimization runs. IF NOT
// EXISTS: a learning log written before this version (the same tables, no schema_version) is
// brought up to a full store without losing them.
constexpr const char* kVersion6 = R"sql(
CREATE TABLE IF NOT EXISTS autoprofile_run (
    id INTEGER PRIMARY KEY,
    name TEXT UNIQUE NOT NULL,
    settings TEXT NOT NULL,
    rounds_done INTEGER NOT NULL DEFAULT 0,
    finished INTEGER NOT NULL DEFAULT 0,
    tree TEXT
);
CREATE TABLE IF NOT EXISTS autoprofile_proposal (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES autoprofile_run(id),
    round INTEGER NOT NULL,
    proposer TEXT NOT NULL,
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    score REAL NOT NULL,
    hit_rate REAL NOT NULL,
    mean_seconds REAL NOT NULL,
    mean_passes REAL NOT NULL,
    accepted INTEGER NOT NULL
);
)sql";

}  // namespace

const std::vector<Migration>& schema_migrations() {
    static const std::vector<Migration> migrations = {
        {1, "runs, nodes, evaluations, profiles, findings, proposals, LLM exchanges", kVersion1},
        {2, "search memory lessons", kVersion2},
        {3, "run recipes", kVersion3},
        {4, "proposer exhaustion per proposal kind", kVersion4},
        {5, "tool calls of LLM exchanges", kVersion5},
        {6, "profiling-tree learning runs and their proposals", kVersion6},
    };
    return migrations;
}

int latest_schema_version() { return schema_migrations().back().version; }

Result<int> read_schema_version(SqliteDatabase& database) {
    auto exists = database.prepare("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='schema_version'");
    if (!exists) return exists.error();
    if (auto row = exists->step(); !row) return row.error();
    if (exists->column_int(0) == 0) return 0;
    auto query = database.prepare("SELECT version FROM schema_version");
    if (!query) return query.error();
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return 0;
    return static_cast<int>(query->column_int(0));
}

Status migrate(SqliteDatabase& database, int target_version) {
    const int latest = latest_schema_version();
    if (target_version < 0) target_version = latest;
    auto current = read_schema_version(database);
    if (!current) return current.error();
    if (*current > latest)
        return make_error("run store " + database.path().string() + " has schema version " +
                          std::to_string(*current) + ", newer than this kernelpro understands (" +
                          std::to_string(latest) + "); upgrade kernelpro or use another store (--store)");
    if (*current >= target_version) return {};
    // One write transaction for the whole upgrade, the version read again inside it: processes
    // opening a new store at once wait here in turn, and the later ones find it migrated.
    auto transaction = SqliteTransaction::begin(database);
    if (!transaction) return transaction.error();
    current = read_schema_version(database);
    if (!current) return current.error();
    for (const auto& migration : schema_migrations()) {
        if (migration.version <= *current || migration.version > target_version) continue;
        if (auto status = database.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);");
            !status)
            return status.error();
        if (auto status = database.execute(migration.sql); !status)
            return make_error("schema migration " + std::to_string(migration.version) + " (" +
                              migration.description + ") failed: " + status.error().message);
        if (auto status = database.execute("DELETE FROM schema_version; INSERT INTO schema_version VALUES (" +
                                           std::to_string(migration.version) + ");");
            !status)
            return status.error();
    }
    return transaction->commit();
}

}  // namespace kp::store
