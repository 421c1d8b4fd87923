// The writer's code-search tools over one CodeIndex, as function-calling tools (llm::ToolBox):
//   search_code(pattern, mode = regex|words, path)   matching lines, path:line: text
//   list_files(path)                                 a folder's folders and files
//   read_file(path, start_line, end_line)            numbered lines
// Every result is cut to a character budget and says what was left out and how to get it; bad
// arguments (a regex that does not compile, a path outside the tree, a missing field) come back
// as an error result the model can correct, never as a failed proposal.
#pragma once

#include <memory>
#include <string>

#include "codesearch/code_index.h"
#include "llm/tool_calls.h"

namespace kp::codesearch {

struct ToolBudget {
    std::size_t max_chars = 6000;   // per result
    int max_read_lines = 200;       // per read_file call
    std::size_t max_hits = 80;      // lines a search shows at most
};

// What the tools answer (and `kernelpro codesearch` prints), within `max_chars`.
std::string render_search(const SearchQuery& query, const SearchResult& result, std::size_t max_chars);
std::string render_listing(const std::string& folder, const std::vector<FolderEntry>& entries, std::size_t max_chars);
std::string render_lines(const FileLines& lines, std::size_t max_chars);

class CodeSearchTools;

// The tools over `tree`'s index (built or reused from the cache), labelled by what the tree is
// (its CUTLASS version, when it is a CUTLASS tree).
Result<std::shared_ptr<CodeSearchTools>> open_code_search_tools(const std::filesystem::path& tree,
                                                                 const CodeIndexOptions& options = {});

class CodeSearchTools final : public llm::ToolBox {
public:
    // `tree_label` tells the model what the tree is ("CUTLASS 4.2.0: include/cute, include/cutlass, examples").
    CodeSearchTools(std::shared_ptr<const CodeIndex> index, std::string tree_label, ToolBudget budget = {});

    const std::vector<llm::ToolDefinition>& definitions() const override { return definitions_; }
    llm::ToolResult run(const llm::ToolCall& call) override;

private:
    std::shared_ptr<const CodeIndex> index_;
    ToolBudget budget_;
    std::vector<llm::ToolDefinition> definitions_;
};

}  // namespace kp::codesearch
