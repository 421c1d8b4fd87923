#include "store/sqlite_database.h"

#include <sqlite3.h>

#include <chrono>
#include <thread>
#include <utility>

namespace kp::store {

namespace {
std::string describe(sqlite3* db, const std::string& what) {
    return what + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
}
}  // namespace

Result<SqliteDatabase> SqliteDatabase::open(const std::filesystem::path& path, Durability durability) {
    sqlite3* handle = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
        std::string message = describe(handle, "cannot open run store " + path.string());
        sqlite3_close(handle);
        return make_error(message);
    }
    SqliteDatabase database(handle, path);
    sqlite3_busy_timeout(handle, 10000);
    // WAL: readers never block the writer. synchronous=FULL (the default durability): a committed
    // evaluation survives even a power loss; one fsync per evaluation is negligible next to
    // compiling and timing a kernel.
    const std::string synchronous = durability == Durability::power_loss_safe ? "FULL" : "NORMAL";
    // Switching a new store to WAL takes an exclusive lock, and SQLite answers SQLITE_BUSY at once
    // (no busy handler) to the other processes that open it at the same moment: 6 processes
    // opening one new store together failed 1 time in 2. They wait and ask again, within the busy
    // timeout.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
        rc = sqlite3_exec(handle, "PRAGMA journal_mode=WAL;", nullptr, nullptr, nullptr);
        if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (rc != SQLITE_OK) return make_error(describe(handle, "SQLite error in `PRAGMA journal_mode=WAL;`"));
    if (auto status = database.execute("PRAGMA synchronous=" + synchronous + "; PRAGMA foreign_keys=ON;"); !status)
        return status.error();
    return database;
}

Result<SqliteDatabase> SqliteDatabase::open_read_only(const std::filesystem::path& path) {
    std::string uri = "file:";
    for (char c : std::filesystem::absolute(path).string()) {  // percent-encode what a URI path cannot hold
        if (c == '%' || c == '?' || c == '#') {
            static const char* hex = "0123456789ABCDEF";
            uri += '%';
            uri += hex[(static_cast<unsigned char>(c) >> 4) & 0xF];
            uri += hex[static_cast<unsigned char>(c) & 0xF];
        } else {
            uri += c;
        }
    }
    uri += "?mode=ro&immutable=1";
    sqlite3* handle = nullptr;
    int rc = sqlite3_open_v2(uri.c_str(), &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = describe(handle, "cannot open run store " + path.string() + " for reading");
        sqlite3_close(handle);
        return make_error(message);
    }
    return SqliteDatabase(handle, path);
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

SqliteDatabase& SqliteDatabase::operator=(SqliteDatabase&& other) noexcept {
    if (this != &other) {
        sqlite3_close(handle_);
        handle_ = std::exchange(other.handle_, nullptr);
        path_ = std::move(other.path_);
    }
    return *this;
}

SqliteDatabase::~SqliteDatabase() { sqlite3_close(handle_); }

Status SqliteDatabase::execute(std::string_view sql) {
    std::string text(sql);
    char* message = nullptr;
    int rc = sqlite3_exec(handle_, text.c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK) {
        std::string error = std::string("SQLite error in `") + text.substr(0, 80) + "`: " +
                            (message ? message : sqlite3_errstr(rc));
        sqlite3_free(message);
        return make_error(error);
    }
    return {};
}

Result<SqliteStatement> SqliteDatabase::prepare(std::string_view sql) {
    sqlite3_stmt* statement = nullptr;
    int rc = sqlite3_prepare_v2(handle_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr);
    if (rc != SQLITE_OK)
        return make_error(describe(handle_, "SQLite cannot prepare `" + std::string(sql.substr(0, 80)) + "`"));
    return SqliteStatement(statement, handle_);
}

std::int64_t SqliteDatabase::last_insert_rowid() const { return sqlite3_last_insert_rowid(handle_); }

std::string SqliteDatabase::last_error() const { return sqlite3_errmsg(handle_); }

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr)),
      db_(other.db_),
      bind_error_(std::move(other.bind_error_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(statement_);
        statement_ = std::exchange(other.statement_, nullptr);
        db_ = other.db_;
        bind_error_ = std::move(other.bind_error_);
    }
    return *this;
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(statement_); }

void SqliteStatement::note_bind(int rc) {
    if (rc != SQLITE_OK && !bind_error_) bind_error_ = describe(db_, "SQLite bind failed");
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
    note_bind(sqlite3_bind_int64(statement_, index, value));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
    note_bind(sqlite3_bind_double(statement_, index, value));
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
    note_bind(sqlite3_bind_text(statement_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT));
    return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
    note_bind(sqlite3_bind_null(statement_, index));
    return *this;
}

Result<bool> SqliteStatement::step() {
    if (bind_error_) return make_error(*bind_error_);
    int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    return make_error(describe(db_, std::string("SQLite error in `") + sqlite3_sql(statement_) + "`"));
}

Status SqliteStatement::run() {
    while (true) {
        auto row = step();
        if (!row) return row.error();
        if (!*row) return {};
    }
}

SqliteStatement& SqliteStatement::reset() {
    sqlite3_reset(statement_);  // its code repeats the last step's error, which step() already reported
    return *this;
}

bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(statement_, column) == SQLITE_NULL; }

std::int64_t SqliteStatement::column_int(int column) const { return sqlite3_column_int64(statement_, column); }

double SqliteStatement::column_double(int column) const { return sqlite3_column_double(statement_, column); }

std::string SqliteStatement::column_text(int column) const {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
    if (!text) return {};
    return std::string(text, static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

std::optional<double> SqliteStatement::column_optional_double(int column) const {
    if (is_null(column)) return std::nullopt;
    return column_double(column);
}

std::optional<std::int64_t> SqliteStatement::column_optional_int(int column) const {
    if (is_null(column)) return std::nullopt;
    return column_int(column);
}

std::optional<std::string> SqliteStatement::column_optional_text(int column) const {
    if (is_null(column)) return std::nullopt;
    return column_text(column);
}

Result<SqliteTransaction> SqliteTransaction::begin(SqliteDatabase& database) {
    if (auto status = database.execute("BEGIN IMMEDIATE"); !status) return status.error();
    return SqliteTransaction(&database);
}

SqliteTransaction::SqliteTransaction(SqliteTransaction&& other) noexcept
    : database_(std::exchange(other.database_, nullptr)) {}

SqliteTransaction::~SqliteTransaction() {
    if (database_) (void)database_->execute("ROLLBACK");
}

Status SqliteTransaction::commit() {
    if (!database_) return make_error("commit on a finished transaction");
    auto status = database_->execute("COMMIT");
    if (status) database_ = nullptr;
    return status;
}

}  // namespace kp::store
