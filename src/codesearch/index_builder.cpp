#include "codesearch/index_builder.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include "common/hash.h"
#include "common/utf8.h"
#include "store/sqlite_database.h"

namespace kp::codesearch::detail {

namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kMaxFileBytes = 4u << 20;
constexpr std::size_t kBinaryProbe = 8192;

constexpr const char* kSchema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, lines INTEGER NOT NULL, text TEXT NOT NULL);
CREATE VIRTUAL TABLE content USING fts5(text, content='files', content_rowid='id', tokenize='trigram');
)sql";

std::size_t count_lines(const std::string& text) {
    if (text.empty()) return 0;
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + (text.back() == '\n' ? 0 : 1);
}

}  // namespace

Result<std::vector<TreeFile>> walk_tree(const fs::path& root) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return make_error("not a folder: " + path_text(root));
    std::vector<TreeFile> files;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) return make_error("cannot read " + path_text(root) + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec) return make_error("cannot walk " + path_text(root) + ": " + ec.message());
        const fs::directory_entry& entry = *it;
        const std::string name = entry.path().filename().string();
        if (entry.is_symlink(ec)) continue;  // never followed: it may point out of the tree
        if (entry.is_directory(ec)) {
            if (!name.empty() && (name[0] == '.' || name == "__pycache__")) it.disable_recursion_pending();
            continue;
        }
        if (!entry.is_regular_file(ec)) continue;
        const auto size = entry.file_size(ec);
        if (ec || size > kMaxFileBytes) continue;
        const auto mtime = entry.last_write_time(ec);
        if (ec) continue;
        files.push_back({fs::relative(entry.path(), root).generic_string(), size,
                         static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                       mtime.time_since_epoch()).count())});
    }
    std::sort(files.begin(), files.end(), [](const TreeFile& a, const TreeFile& b) { return a.path < b.path; });
    return files;
}

std::string tree_signature(const fs::path& root, const std::vector<TreeFile>& files) {
    Sha256 hash;
    hash.add(std::to_string(kIndexFormat)).add(root.string());
    for (const auto& f : files) hash.add(f.path).add(std::to_string(f.size)).add(std::to_string(f.mtime_ns));
    return hash.hex();
}

Status write_index(const fs::path& index_file, const fs::path& root, const std::vector<TreeFile>& files,
                   const std::string& signature, IndexStats& stats) {
    auto database = store::SqliteDatabase::open(index_file, store::Durability::process_crash_safe);
    if (!database) return database.error();
    if (auto created = database->execute(kSchema); !created) return created.error();
    auto transaction = store::SqliteTransaction::begin(*database);
    if (!transaction) return transaction.error();
    auto insert = database->prepare("INSERT INTO files (path, lines, text) VALUES (?, ?, ?)");
    if (!insert) return insert.error();
    for (const auto& f : files) {
        std::ifstream in(root / f.path, std::ios::binary);
        if (!in) continue;  // vanished or unreadable since the walk: left out
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (bytes.find('\0') < std::min(bytes.size(), kBinaryProbe)) continue;
        std::string text = valid_utf8(bytes);
        const std::size_t lines = count_lines(text);
        if (auto stepped = insert->reset().bind(1, f.path).bind(2, static_cast<std::int64_t>(lines)).bind(3, text).run(); !stepped)
            return stepped.error();
        ++stats.files;
        stats.lines += lines;
        stats.bytes += bytes.size();
    }
    if (auto indexed = database->execute("INSERT INTO content(content) VALUES('rebuild');"); !indexed) return indexed.error();
    auto meta = database->prepare("INSERT INTO meta (key, value) VALUES (?, ?)");
    if (!meta) return meta.error();
    for (const auto& [key, value] : {std::pair<std::string, std::string>{"format", std::to_string(kIndexFormat)},
                                     {"root", root.string()},
                                     {"signature", signature},
                                     {"files", std::to_string(stats.files)},
                                     {"lines", std::to_string(stats.lines)},
                                     {"bytes", std::to_string(stats.bytes)}})
        if (auto put = meta->reset().bind(1, key).bind(2, value).run(); !put) return put.error();
    return transaction->commit();
}

}  // namespace kp::codesearch::detail
