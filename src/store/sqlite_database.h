// A small RAII layer over the SQLite C API: a connection, prepared statements and a transaction
// guard. Errors come back as kp::Result with SQLite's own message, never as exceptions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace kp::store {

class SqliteStatement;

// How hard a commit is pushed to disk. Both survive a killed process (kill -9): with WAL, a
// committed transaction is in the log file before COMMIT returns. Only `power_loss_safe` also
// survives an OS crash or power cut, at the price of an fsync per commit.
enum class Durability { power_loss_safe, process_crash_safe };

class SqliteDatabase {
public:
    // Opens (creating if needed) the database file, with WAL journaling, foreign keys on and a
    // busy timeout, so a second process (e.g. `runs list` during a run) waits instead of failing.
    static Result<SqliteDatabase> open(const std::filesystem::path& path,
                                       Durability durability = Durability::power_loss_safe);
    // Opens an existing file for reading only and as immutable (no locks, no -wal/-shm files), so
    // a store in a folder this user cannot write can still be listed.
    static Result<SqliteDatabase> open_read_only(const std::filesystem::path& path);

    SqliteDatabase(SqliteDatabase&& other) noexcept;
    SqliteDatabase& operator=(SqliteDatabase&& other) noexcept;
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;
    ~SqliteDatabase();

    // Runs one or more statements that return no rows (DDL, PRAGMA, BEGIN ...).
    Status execute(std::string_view sql);
    Result<SqliteStatement> prepare(std::string_view sql);
    std::int64_t last_insert_rowid() const;
    std::string last_error() const;
    const std::filesystem::path& path() const { return path_; }

private:
    SqliteDatabase(sqlite3* handle, std::filesystem::path path) : handle_(handle), path_(std::move(path)) {}
    sqlite3* handle_ = nullptr;
    std::filesystem::path path_;
};

class SqliteStatement {
public:
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&& other) noexcept;
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    ~SqliteStatement();

    // Parameters are 1-based, as in SQLite. A bind failure is remembered and reported by step().
    SqliteStatement& bind(int index, std::int64_t value);
    SqliteStatement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    SqliteStatement& bind(int index, double value);
    SqliteStatement& bind(int index, std::string_view value);
    SqliteStatement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
    SqliteStatement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    SqliteStatement& bind_null(int index);
    template <typename T>
    SqliteStatement& bind(int index, const std::optional<T>& value) {
        return value ? bind(index, *value) : bind_null(index);
    }

    // true: a row is available; false: done.
    Result<bool> step();
    // Steps until done (for INSERT/UPDATE/DELETE).
    Status run();
    // Back to the start, bindings kept, so the statement runs again with new ones (a bulk insert).
    SqliteStatement& reset();

    bool is_null(int column) const;
    std::int64_t column_int(int column) const;
    double column_double(int column) const;
    std::string column_text(int column) const;
    std::optional<double> column_optional_double(int column) const;
    std::optional<std::int64_t> column_optional_int(int column) const;
    std::optional<std::string> column_optional_text(int column) const;

private:
    friend class SqliteDatabase;
    SqliteStatement(sqlite3_stmt* statement, sqlite3* db) : statement_(statement), db_(db) {}
    void note_bind(int rc);
    sqlite3_stmt* statement_ = nullptr;
    sqlite3* db_ = nullptr;
    std::optional<std::string> bind_error_;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front, so a transaction never fails
// half-way on a lock upgrade); rolls back on destruction unless commit() succeeded.
class SqliteTransaction {
public:
    static Result<SqliteTransaction> begin(SqliteDatabase& database);
    SqliteTransaction(SqliteTransaction&& other) noexcept;
    SqliteTransaction& operator=(SqliteTransaction&&) = delete;
    SqliteTransaction(const SqliteTransaction&) = delete;
    ~SqliteTransaction();
    Status commit();

private:
    explicit SqliteTransaction(SqliteDatabase* database) : database_(database) {}
    SqliteDatabase* database_ = nullptr;  // null once committed or moved from
};

}  // namespace kp::store
