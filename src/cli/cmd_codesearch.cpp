// kernelpro codesearch index|search|list|read TREE ...: the writer's code-search tools by hand, on
// any source tree (the CUTLASS/CuTe install above all), with the time each step took: the index
// built or reused (cached per tree, see codesearch/code_index.h), then each query. What the
// commands print is what the LLM's tools answer, within the same budget.
// Exit codes: 0 done, 2 a bad tree, regex, path or line range, 3 the index cannot be written.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "codesearch/code_search_tools.h"

namespace kp::cli {

namespace {

struct CodesearchOptions {
    std::string tree;
    std::string cache_dir;
    std::string pattern;
    bool words = false;
    std::string path;
    int start_line = 1;
    int end_line = 0;
    std::size_t max_chars = codesearch::ToolBudget{}.max_chars;
    std::size_t max_hits = codesearch::ToolBudget{}.max_hits;
};

Result<codesearch::CodeIndex> open_tree(const CodesearchOptions& o, int& exit_code) {
    std::error_code ec;
    if (!std::filesystem::is_directory(o.tree, ec)) {
        exit_code = kExitUsage;
        return make_error("not a folder: " + o.tree);
    }
    auto index = codesearch::CodeIndex::open(o.tree, {o.cache_dir});
    if (!index) {
        exit_code = kExitEnvironment;
        return index.error();
    }
    const auto& s = index->stats();
    if (s.reused)
        std::cerr << fmt::format("index: reused {} ({} files, {} lines; tree checked in {:.3f} s)\n", s.index_file.string(),
                                 s.files, s.lines, s.check_seconds);
    else
        std::cerr << fmt::format("index: built {} ({} files, {} lines, {:.1f} MB) in {:.2f} s (tree walked in {:.3f} s)\n",
                                 s.index_file.string(), s.files, s.lines, s.bytes / 1e6, s.build_seconds, s.check_seconds);
    return index;
}

int fail(const std::string& message, int code) {
    std::cerr << "error: " << message << "\n";
    return code;
}

int run_index(const CodesearchOptions& o) {
    int code = kExitOk;
    auto index = open_tree(o, code);
    return index ? kExitOk : fail(index.error().message, code);
}

int run_search(const CodesearchOptions& o) {
    int code = kExitOk;
    auto index = open_tree(o, code);
    if (!index) return fail(index.error().message, code);
    codesearch::SearchQuery query(o.pattern, o.words ? codesearch::SearchMode::words : codesearch::SearchMode::regex, o.path,
                                  o.max_hits);
    auto result = index->search(query);
    if (!result) return fail(result.error().message, kExitUsage);
    std::cout << codesearch::render_search(query, *result, o.max_chars);
    std::cerr << fmt::format("query: {:.2f} ms ({} files scanned of {})\n", result->seconds * 1e3, result->files_scanned,
                             index->stats().files);
    return kExitOk;
}

int run_list(const CodesearchOptions& o) {
    int code = kExitOk;
    auto index = open_tree(o, code);
    if (!index) return fail(index.error().message, code);
    auto entries = index->list(o.path);
    if (!entries) return fail(entries.error().message, kExitUsage);
    std::cout << codesearch::render_listing(o.path, *entries, o.max_chars);
    return kExitOk;
}

int run_read(const CodesearchOptions& o) {
    int code = kExitOk;
    auto index = open_tree(o, code);
    if (!index) return fail(index.error().message, code);
    auto lines = index->read(o.path, o.start_line, o.end_line > 0 ? o.end_line : o.start_line + 199);
    if (!lines) return fail(lines.error().message, kExitUsage);
    std::cout << codesearch::render_lines(*lines, o.max_chars);
    return kExitOk;
}

}  // namespace

Handler register_codesearch(CLI::App& root) {
    auto* cmd = root.add_subcommand("codesearch", "The writer's code-search tools on a source tree (index, search, list, read), timed");
    cmd->require_subcommand(1);
    auto o = std::make_shared<CodesearchOptions>();
    auto tree = [&](CLI::App* sub) {
        sub->add_option("tree", o->tree, "The source tree (a CUTLASS install: the folder holding include/cute)")->required();
        sub->add_option("--cache-dir", o->cache_dir, "Where the index goes (default: the cache folder's codesearch/)");
    };
    auto* index = cmd->add_subcommand("index", "Build the tree's index, or check the cached one is current; print the time");
    tree(index);
    auto* search = cmd->add_subcommand("search", "Lines matching a regex (RE2) or holding the most of some words");
    tree(search);
    search->add_option("pattern", o->pattern, "RE2 regex, or words with --words")->required();
    search->add_flag("--words", o->words, "Rank lines by how many of the words they hold (any case)");
    search->add_option("--path", o->path, "Search this folder or file only");
    search->add_option("--max-chars", o->max_chars, "Cut the answer at this many characters")->check(CLI::PositiveNumber);
    search->add_option("--max-hits", o->max_hits, "Show at most this many lines")->check(CLI::PositiveNumber);
    auto* list = cmd->add_subcommand("list", "A folder's folders and files");
    tree(list);
    list->add_option("path", o->path, "Folder relative to the tree (default: its root)");
    auto* read = cmd->add_subcommand("read", "Lines of a file, numbered");
    tree(read);
    read->add_option("path", o->path, "File relative to the tree")->required();
    read->add_option("start", o->start_line, "First line (default 1)")->check(CLI::PositiveNumber);
    read->add_option("end", o->end_line, "Last line (default: start + 199)")->check(CLI::PositiveNumber);
    read->add_option("--max-chars", o->max_chars, "Cut the answer at this many characters")->check(CLI::PositiveNumber);
    return [=]() -> int {
        if (index->parsed()) return run_index(*o);
        if (search->parsed()) return run_search(*o);
        if (list->parsed()) return run_list(*o);
        return run_read(*o);
    };
}

}  // namespace kp::cli
