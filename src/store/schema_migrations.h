// Ordered schema migrations for the run store. The `schema_version` table holds one row: the
// number of the last migration applied. Each migration runs in its own transaction together with
// the version bump, so a crash mid-upgrade leaves the database at the previous version.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "store/sqlite_database.h"

namespace kp::store {

struct Migration {
    int version;              // 1, 2, 3 ... in order, never renumbered once released
    std::string description;  // one line, shown in errors and logs
    std::string sql;          // DDL/DML; runs inside the migration's transaction
};

// All migrations, in order. Add new ones at the end; never edit a released one.
const std::vector<Migration>& schema_migrations();

// The version this build writes: the last migration's number.
int latest_schema_version();

// 0 for a fresh database (no schema_version table).
Result<int> read_schema_version(SqliteDatabase& database);

// Applies every migration above the current version up to `target_version` (default: latest).
// Fails, touching nothing, when the database is newer than this build understands.
Status migrate(SqliteDatabase& database, int target_version = -1);

}  // namespace kp::store
