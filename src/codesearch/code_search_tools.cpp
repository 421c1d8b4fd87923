#include "codesearch/code_search_tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>

namespace kp::codesearch {

namespace {

// Appends `line` and a newline if it fits in `max_chars`; false (and nothing appended) otherwise.
bool append_within(std::string& out, const std::string& line, std::size_t max_chars) {
    if (out.size() + line.size() + 1 > max_chars) return false;
    out += line;
    out += '\n';
    return true;
}

std::string where(const std::string& path) { return path.empty() ? "the tree" : "'" + path + "'"; }

Result<std::optional<std::string>> string_argument(const nlohmann::json& args, const char* name, bool required) {
    if (!args.contains(name) || args[name].is_null()) {
        if (required) return make_error(std::string("missing argument \"") + name + "\"");
        return std::optional<std::string>{};
    }
    if (!args[name].is_string()) return make_error(std::string("argument \"") + name + "\" must be a string");
    return std::optional<std::string>(args[name].get<std::string>());
}

Result<std::optional<int>> int_argument(const nlohmann::json& args, const char* name) {
    if (!args.contains(name) || args[name].is_null()) return std::optional<int>{};
    if (!args[name].is_number_integer()) return make_error(std::string("argument \"") + name + "\" must be an integer");
    // Clamped so that line arithmetic on what a model wrote cannot overflow.
    return std::optional<int>(static_cast<int>(std::clamp<std::int64_t>(args[name].get<std::int64_t>(), 0, 1 << 30)));
}

llm::ToolResult refused(const std::string& message) { return {"error: " + message, true}; }

std::vector<llm::ToolDefinition> make_definitions(const std::string& label, const ToolBudget& budget) {
    const std::string tree = "the " + label + " source tree";
    return {
        {"search_code",
         fmt::format("Search {} line by line. mode \"regex\" (default): RE2 syntax, case-sensitive unless the pattern "
                     "starts with (?i); mode \"words\": lines holding the most of the given words, any case. Returns "
                     "path:line: text, at most {} lines and {} characters; give a path to search one folder or file.",
                     tree, budget.max_hits, budget.max_chars),
         {{"type", "object"},
          {"properties",
           {{"pattern", {{"type", "string"}, {"description", "a regex, or words separated by spaces"}}},
            {"mode", {{"type", "string"}, {"enum", {"regex", "words"}}, {"description", "regex (default) or words"}}},
            {"path", {{"type", "string"}, {"description", "a folder or file relative to the tree's root; empty: all"}}}}},
          {"required", {"pattern"}}}},
        {"list_files",
         fmt::format("List a folder of {}: its folders (with file counts) and files (with line counts).", tree),
         {{"type", "object"},
          {"properties",
           {{"path", {{"type", "string"}, {"description", "a folder relative to the tree's root; empty: the root"}}}}}}},
        {"read_file",
         fmt::format("Read lines of a file of {}, numbered, at most {} lines and {} characters per call.", tree,
                     budget.max_read_lines, budget.max_chars),
         {{"type", "object"},
          {"properties",
           {{"path", {{"type", "string"}, {"description", "a file relative to the tree's root"}}},
            {"start_line", {{"type", "integer"}, {"description", "first line, 1-based (default 1)"}}},
            {"end_line", {{"type", "integer"}, {"description", "last line, inclusive"}}}}},
          {"required", {"path"}}}},
    };
}

}  // namespace

std::string render_search(const SearchQuery& query, const SearchResult& result, std::size_t max_chars) {
    const char* mode = query.mode == SearchMode::regex ? "regex" : "words";
    if (result.total_hits == 0)
        return fmt::format("no line matches {} \"{}\" in {} ({} files scanned)\n", mode, query.pattern, where(query.path),
                           result.files_scanned);
    std::string out;
    append_within(out,
                  fmt::format("{} matching line{} in {} file{} for {} \"{}\"{}:", result.total_hits,
                              result.total_hits == 1 ? "" : "s", result.files_with_hits,
                              result.files_with_hits == 1 ? "" : "s", mode, query.pattern,
                              query.mode == SearchMode::words ? ", most words first" : ""),
                  max_chars);
    std::size_t shown = 0;
    const std::string tail_room(120, ' ');  // keeps space for the note below
    for (const auto& hit : result.hits) {
        if (!append_within(out, fmt::format("{}:{}: {}", hit.path, hit.line, hit.text), max_chars - tail_room.size()))
            break;
        ++shown;
    }
    if (shown < result.total_hits)
        out += fmt::format("[{} more matching line{} not shown: narrow the pattern or give a path]\n",
                           result.total_hits - shown, result.total_hits - shown == 1 ? "" : "s");
    return out;
}

std::string render_listing(const std::string& folder, const std::vector<FolderEntry>& entries, std::size_t max_chars) {
    std::string out;
    append_within(out, fmt::format("{}/ ({} entries):", folder.empty() ? "." : folder, entries.size()), max_chars);
    std::size_t shown = 0;
    for (const auto& e : entries) {
        const std::string line = e.is_folder ? fmt::format("{}/  ({} files)", e.name, e.files)
                                             : fmt::format("{}  ({} lines)", e.name, e.lines);
        if (!append_within(out, line, max_chars > 80 ? max_chars - 80 : 0)) break;
        ++shown;
    }
    if (shown < entries.size()) out += fmt::format("[{} more entries not shown]\n", entries.size() - shown);
    return out;
}

std::string render_lines(const FileLines& lines, std::size_t max_chars) {
    std::string out;
    append_within(out, fmt::format("{} lines {}-{} of {}:", lines.path, lines.first, lines.last, lines.total_lines),
                  max_chars);
    int number = lines.first;
    for (const auto& line : lines.lines) {
        if (!append_within(out, fmt::format("{:>5}| {}", number, line), max_chars > 80 ? max_chars - 80 : 0)) break;
        ++number;
    }
    if (number <= lines.last)
        out += fmt::format("[cut at {} characters: read on from line {}]\n", max_chars, number);
    else if (lines.last < lines.total_lines)
        out += fmt::format("[the file goes on to line {}]\n", lines.total_lines);
    return out;
}

Result<std::shared_ptr<CodeSearchTools>> open_code_search_tools(const std::filesystem::path& tree,
                                                                 const CodeIndexOptions& options) {
    auto index = CodeIndex::open(tree, options);
    if (!index) return index.error();
    auto shared = std::make_shared<const CodeIndex>(std::move(*index));
    std::string label = "code";
    if (auto version = shared->read("include/cutlass/version.h", 1, 80)) {
        int major = -1, minor = -1, patch = -1;
        for (const auto& line : version->lines) {
            std::sscanf(line.c_str(), "#define CUTLASS_MAJOR %d", &major);
            std::sscanf(line.c_str(), "#define CUTLASS_MINOR %d", &minor);
            std::sscanf(line.c_str(), "#define CUTLASS_PATCH %d", &patch);
        }
        if (major >= 0) label = fmt::format("CUTLASS {}.{}.{} (include/cute, include/cutlass, examples)", major, minor, patch);
    }
    return std::make_shared<CodeSearchTools>(std::move(shared), label);
}

CodeSearchTools::CodeSearchTools(std::shared_ptr<const CodeIndex> index, std::string tree_label, ToolBudget budget)
    : index_(std::move(index)), budget_(budget), definitions_(make_definitions(tree_label, budget)) {}

llm::ToolResult CodeSearchTools::run(const llm::ToolCall& call) {
    const nlohmann::json& args = call.arguments;
    if (!args.is_object())
        return refused("the arguments are not a JSON object: " + (args.is_string() ? args.get<std::string>() : args.dump()));
    if (call.name == "search_code") {
        auto pattern = string_argument(args, "pattern", true);
        auto mode = string_argument(args, "mode", false);
        auto path = string_argument(args, "path", false);
        for (const auto* problem : {&pattern, &mode, &path})
            if (!*problem) return refused(problem->error().message);
        SearchQuery query;
        query.pattern = **pattern;
        if (*mode && **mode != "regex" && **mode != "words") return refused("mode must be \"regex\" or \"words\"");
        query.mode = *mode && **mode == "words" ? SearchMode::words : SearchMode::regex;
        query.path = path->value_or("");
        query.max_hits = budget_.max_hits;
        auto result = index_->search(query);
        if (!result) return refused(result.error().message);
        return {render_search(query, *result, budget_.max_chars), false};
    }
    if (call.name == "list_files") {
        auto path = string_argument(args, "path", false);
        if (!path) return refused(path.error().message);
        auto entries = index_->list(path->value_or(""));
        if (!entries) return refused(entries.error().message);
        return {render_listing(path->value_or(""), *entries, budget_.max_chars), false};
    }
    if (call.name == "read_file") {
        auto path = string_argument(args, "path", true);
        if (!path) return refused(path.error().message);
        auto start = int_argument(args, "start_line");
        auto end = int_argument(args, "end_line");
        if (!start) return refused(start.error().message);
        if (!end) return refused(end.error().message);
        const int first = std::max(1, start->value_or(1));
        const int last = std::min(end->value_or(first + budget_.max_read_lines - 1), first + budget_.max_read_lines - 1);
        auto lines = index_->read(**path, first, last);
        if (!lines) return refused(lines.error().message);
        return {render_lines(*lines, budget_.max_chars), false};
    }
    return refused("no tool named '" + call.name + "' (the tools: search_code, list_files, read_file)");
}

}  // namespace kp::codesearch
