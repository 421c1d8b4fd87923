// A searchable snapshot of a source tree (the CUTLASS/CuTe headers and examples): every text file's
// lines in one SQLite file with an FTS5 trigram index over them, built once per tree and reused
// while the tree is unchanged. Searches narrow by the index, then match on the narrowed files; a
// regex always runs in linear time (RE2), whoever wrote it.
//
// The cache: <cache>/codesearch/<hash of the tree's path>.db, valid while its signature (every
// file's path, size and modification time) matches the tree's; anything else rebuilds it (into a
// temporary file renamed over the old one, so readers never see half an index).
// Symbolic links are not followed and binary files (a NUL byte in the first 8 KiB) or files over
// 4 MiB are left out: nothing outside the tree can be read through the index.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace kp::store {
class SqliteDatabase;
}

namespace kp::codesearch {

struct CodeIndexOptions {
    std::filesystem::path cache_directory;  // empty: kp::cache_directory()/codesearch
};

struct IndexStats {
    std::size_t files = 0;
    std::size_t lines = 0;
    std::uint64_t bytes = 0;
    double build_seconds = 0.0;     // 0 when an existing index was reused
    double check_seconds = 0.0;     // walking the tree to compare its signature
    bool reused = false;
    std::filesystem::path index_file;
};

enum class SearchMode { regex, words };

struct SearchQuery {
    SearchQuery() = default;
    SearchQuery(std::string pattern_, SearchMode mode_ = SearchMode::regex, std::string path_ = {}, std::size_t max_hits_ = 200)
        : pattern(std::move(pattern_)), mode(mode_), path(std::move(path_)), max_hits(max_hits_) {}

    std::string pattern;            // RE2 syntax (regex), or words separated by spaces (words)
    SearchMode mode = SearchMode::regex;
    std::string path;               // a folder or file to search within; "" the whole tree
    std::size_t max_hits = 200;     // hits kept (all are counted)
};

struct SearchHit {
    std::string path;
    int line = 0;                   // 1-based
    std::string text;
    int score = 1;                  // words mode: how many of the words the line holds
};

struct SearchResult {
    std::vector<SearchHit> hits;    // regex: by path and line; words: best score first
    std::size_t total_hits = 0;
    std::size_t files_with_hits = 0;
    std::size_t files_scanned = 0;  // what the index narrowed the search to
    double seconds = 0.0;
};

struct FolderEntry {
    std::string name;
    bool is_folder = false;
    std::size_t files = 1;          // a folder: files below it
    std::size_t lines = 0;          // a file: its line count; a folder: the sum
};

struct FileLines {
    std::string path;
    int first = 1, last = 0;        // the lines returned (1-based, inclusive)
    int total_lines = 0;
    std::vector<std::string> lines;
};

class CodeIndex {
public:
    // Opens the tree's cached index, building it first when missing or stale.
    static Result<CodeIndex> open(const std::filesystem::path& root, const CodeIndexOptions& options = {});
    CodeIndex(CodeIndex&&) noexcept;
    CodeIndex& operator=(CodeIndex&&) noexcept;
    ~CodeIndex();

    const std::filesystem::path& root() const { return root_; }
    const IndexStats& stats() const { return stats_; }

    // Errors: a regex that does not compile, a path outside the tree, a folder with no files.
    Result<SearchResult> search(const SearchQuery& query) const;
    Result<std::vector<FolderEntry>> list(std::string_view folder) const;
    // Lines first..last of a file (clamped to the file); errors for paths outside the tree or not in it.
    Result<FileLines> read(std::string_view path, int first, int last) const;

private:
    CodeIndex(std::filesystem::path root, IndexStats stats, std::unique_ptr<store::SqliteDatabase> database);
    std::filesystem::path root_;
    IndexStats stats_;
    std::unique_ptr<store::SqliteDatabase> database_;
};

}  // namespace kp::codesearch
