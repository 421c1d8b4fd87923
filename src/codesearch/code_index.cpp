#include "codesearch/code_index.h"

#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <sstream>

#include "codesearch/index_builder.h"
#include "codesearch/regex_literals.h"
#include "codesearch/tree_path.h"
#include "common/files.h"
#include "common/hash.h"
#include "common/stopwatch.h"
#include "common/utf8.h"
#include "store/sqlite_database.h"

namespace kp::codesearch {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxHitText = 300;  // a minified line must not fill a result on its own

// The folder filter every query shares: ?N is the folder ("" for the whole tree).
std::string within_folder(const char* column, int parameter) {
    const std::string p = "?" + std::to_string(parameter);
    return "(" + p + " = '' OR " + column + " = " + p + " OR substr(" + column + ", 1, length(" + p + ") + 1) = " + p +
           " || '/')";
}

std::string fts_phrases(const std::vector<std::string>& literals) {
    std::string query;
    for (const auto& literal : literals) {
        std::string quoted;
        for (char c : literal) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
        query += (query.empty() ? "" : " AND ") + ("\"" + quoted + "\"");
    }
    return query;
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

template <typename Visit>
void for_each_line(const std::string& text, Visit visit) {
    std::size_t start = 0;
    int number = 1;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        visit(number++, line);
        start = end + 1;
    }
}

std::string hit_text(std::string_view line) {
    if (line.size() <= kMaxHitText) return std::string(line);
    return valid_utf8(line.substr(0, kMaxHitText)) + "...";
}

Result<std::string> meta_value(store::SqliteDatabase& database, const std::string& key) {
    auto query = database.prepare("SELECT value FROM meta WHERE key = ?");
    if (!query) return query.error();
    query->bind(1, key);
    auto row = query->step();
    if (!row) return row.error();
    if (!*row) return make_error("the index has no " + key);
    return query->column_text(0);
}

// The cached index of this tree when it is of this format and this signature.
std::unique_ptr<store::SqliteDatabase> reusable_index(const fs::path& index_file, const std::string& signature,
                                                      IndexStats& stats) {
    std::error_code ec;
    if (!fs::is_regular_file(index_file, ec)) return nullptr;
    auto database = store::SqliteDatabase::open_read_only(index_file);
    if (!database) return nullptr;
    auto stored = meta_value(*database, "signature");
    if (!stored || *stored != signature) return nullptr;
    auto count = [&](const char* key) -> std::uint64_t {
        auto value = meta_value(*database, key);
        return value ? std::strtoull(value->c_str(), nullptr, 10) : 0;
    };
    stats.files = count("files");
    stats.lines = count("lines");
    stats.bytes = count("bytes");
    return std::make_unique<store::SqliteDatabase>(std::move(*database));
}

void remove_database_files(const fs::path& file) {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(file.string() + suffix, ec);
}

}  // namespace

CodeIndex::CodeIndex(fs::path root, IndexStats stats, std::unique_ptr<store::SqliteDatabase> database)
    : root_(std::move(root)), stats_(std::move(stats)), database_(std::move(database)) {}
CodeIndex::CodeIndex(CodeIndex&&) noexcept = default;
CodeIndex& CodeIndex::operator=(CodeIndex&&) noexcept = default;
CodeIndex::~CodeIndex() = default;

Result<CodeIndex> CodeIndex::open(const fs::path& given_root, const CodeIndexOptions& options) {
    std::error_code ec;
    const fs::path root = fs::canonical(given_root, ec);
    if (ec) return make_error("cannot open the code tree " + path_text(given_root) + ": " + ec.message());
    const auto start = std::chrono::steady_clock::now();
    auto files = detail::walk_tree(root);
    if (!files) return files.error();
    const std::string signature = detail::tree_signature(root, *files);
    IndexStats stats;
    stats.check_seconds = seconds_since(start);

    const fs::path cache = options.cache_directory.empty() ? cache_directory() / "codesearch" : options.cache_directory;
    fs::create_directories(cache, ec);
    if (ec) return make_error("cannot create the index folder " + path_text(cache) + ": " + ec.message());
    stats.index_file = cache / (sha256_hex(root.string()).substr(0, 16) + ".db");
    if (auto database = reusable_index(stats.index_file, signature, stats)) {
        stats.reused = true;
        return CodeIndex(root, std::move(stats), std::move(database));
    }

    // Built aside and renamed over the old index: a reader (another run) never sees half of one.
    static std::atomic<int> counter{0};
    const fs::path building = stats.index_file.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    remove_database_files(building);
    const auto build_start = std::chrono::steady_clock::now();
    if (auto written = detail::write_index(building, root, *files, signature, stats); !written) {
        remove_database_files(building);
        return make_error("cannot index " + path_text(root) + ": " + written.error().message);
    }
    fs::rename(building, stats.index_file, ec);
    if (ec) {
        remove_database_files(building);
        return make_error("cannot store the index " + path_text(stats.index_file) + ": " + ec.message());
    }
    stats.build_seconds = seconds_since(build_start);
    auto database = store::SqliteDatabase::open_read_only(stats.index_file);
    if (!database) return database.error();
    return CodeIndex(root, std::move(stats), std::make_unique<store::SqliteDatabase>(std::move(*database)));
}

Result<SearchResult> CodeIndex::search(const SearchQuery& query) const {
    const auto start = std::chrono::steady_clock::now();
    auto folder = normalize_tree_path(query.path);
    if (!folder) return folder.error();
    if (query.pattern.find_first_not_of(" \t\r\n") == std::string::npos) return make_error("the search pattern is empty");

    RE2::Options options;
    options.set_log_errors(false);
    std::unique_ptr<RE2> line_regex, file_regex;
    std::vector<std::string> literals, words;
    if (query.mode == SearchMode::regex) {
        line_regex = std::make_unique<RE2>(query.pattern, options);
        if (!line_regex->ok()) return make_error("the regex does not compile: " + line_regex->error());
        // The same pattern over a whole file, lines as lines: a file it misses has no matching line.
        file_regex = std::make_unique<RE2>("(?m)" + query.pattern, options);
        literals = required_literals(query.pattern);
    } else {
        std::istringstream in(query.pattern);
        for (std::string word; in >> word;) {
            word = lower(word);
            if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(word);
            if (word.size() >= 3) literals.push_back(word);
        }
    }

    const std::string sql =
        literals.empty()
            ? "SELECT path, text FROM files WHERE " + within_folder("path", 1) + " ORDER BY path"
            : "SELECT f.path, f.text FROM content JOIN files f ON f.id = content.rowid WHERE content MATCH ?2 AND " +
                  within_folder("f.path", 1) + " ORDER BY f.path";
    auto rows = database_->prepare(sql);
    if (!rows) return rows.error();
    rows->bind(1, *folder);
    if (!literals.empty()) rows->bind(2, fts_phrases(literals));

    SearchResult result;
    auto keep_best = [&](bool final) {  // words: the best-scored hits, earliest first among equals
        if (!final && result.hits.size() < 4 * query.max_hits + 16) return;
        std::stable_sort(result.hits.begin(), result.hits.end(),
                         [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
        if (result.hits.size() > query.max_hits) result.hits.resize(query.max_hits);
    };
    while (true) {
        auto row = rows->step();
        if (!row) return row.error();
        if (!*row) break;
        ++result.files_scanned;
        const std::string path = rows->column_text(0);
        const std::string text = rows->column_text(1);
        if (file_regex && !RE2::PartialMatch(text, *file_regex)) continue;
        std::size_t hits_here = 0;
        for_each_line(text, [&](int number, std::string_view line) {
            int score = 1;
            if (line_regex) {
                if (!RE2::PartialMatch(line, *line_regex)) return;
            } else {
                const std::string folded = lower(line);
                score = 0;
                for (const auto& word : words) score += folded.find(word) != std::string::npos ? 1 : 0;
                if (score == 0) return;
            }
            ++hits_here;
            ++result.total_hits;
            if (line_regex && result.hits.size() >= query.max_hits) return;
            result.hits.push_back({path, number, hit_text(line), score});
            if (!line_regex) keep_best(false);
        });
        if (hits_here > 0) ++result.files_with_hits;
    }
    if (!line_regex) keep_best(true);
    result.seconds = seconds_since(start);
    return result;
}

Result<std::vector<FolderEntry>> CodeIndex::list(std::string_view given) const {
    auto folder = normalize_tree_path(given);
    if (!folder) return folder.error();
    auto rows = database_->prepare("SELECT path, lines FROM files WHERE " + within_folder("path", 1) + " ORDER BY path");
    if (!rows) return rows.error();
    rows->bind(1, *folder);
    std::map<std::string, FolderEntry> folders, files;
    bool is_file = false;
    while (true) {
        auto row = rows->step();
        if (!row) return row.error();
        if (!*row) break;
        const std::string path = rows->column_text(0);
        const auto lines = static_cast<std::size_t>(rows->column_int(1));
        if (path == *folder) {
            is_file = true;
            continue;
        }
        const std::string rest = folder->empty() ? path : path.substr(folder->size() + 1);
        const auto slash = rest.find('/');
        if (slash == std::string::npos) {
            files[rest] = {rest, false, 1, lines};
            continue;
        }
        const std::string name = rest.substr(0, slash);
        auto& entry = folders.try_emplace(name, FolderEntry{name, true, 0, 0}).first->second;
        ++entry.files;
        entry.lines += lines;
    }
    if (is_file) return make_error("'" + *folder + "' is a file, not a folder: read it instead");
    if (folders.empty() && files.empty()) return make_error("no folder '" + std::string(given) + "' in the tree");
    std::vector<FolderEntry> entries;
    for (auto& [name, entry] : folders) entries.push_back(std::move(entry));
    for (auto& [name, entry] : files) entries.push_back(std::move(entry));
    return entries;
}

Result<FileLines> CodeIndex::read(std::string_view given, int first, int last) const {
    auto path = normalize_tree_path(given);
    if (!path) return path.error();
    if (path->empty()) return make_error("name a file to read (the root is a folder)");
    auto row = database_->prepare("SELECT lines, text FROM files WHERE path = ?");
    if (!row) return row.error();
    row->bind(1, *path);
    auto found = row->step();
    if (!found) return found.error();
    if (!*found) {
        auto children = list(*path);
        if (children) return make_error("'" + *path + "' is a folder, not a file: list it instead");
        return make_error("no file '" + *path + "' in the tree");
    }
    FileLines out;
    out.path = *path;
    out.total_lines = static_cast<int>(row->column_int(0));
    if (first < 1) first = 1;
    if (last < first) return make_error("the end line comes before the start line");
    if (first > out.total_lines)
        return make_error("'" + *path + "' has " + std::to_string(out.total_lines) + " lines; line " +
                          std::to_string(first) + " is past its end");
    out.first = first;
    out.last = std::min(last, out.total_lines);
    const std::string text = row->column_text(1);
    for_each_line(text, [&](int number, std::string_view line) {
        if (number >= out.first && number <= out.last) out.lines.emplace_back(line);
    });
    return out;
}

}  // namespace kp::codesearch
