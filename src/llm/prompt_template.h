// Prompt templates are files under prompts/, not string literals, so a prompt can be read, diffed
// and tuned without a rebuild.
//
// Syntax:
//   {{name}}            a placeholder (name: letters, digits, '_'; spaces inside the braces allowed)
//   <!-- kp:system -->  the lines after it form the system message
//   <!-- kp:user -->    the lines after it form the user message (no markers: all of it is user)
//   <!-- ... -->        any other whole-line HTML comment is a note for prompt authors, dropped
// Any other "{{" is plain text (CUDA code in a prompt may contain it).
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "llm/chat_client.h"

namespace kp::llm {

class PromptTemplate {
public:
    static Result<PromptTemplate> load(const std::filesystem::path& path);
    static Result<PromptTemplate> parse(const std::string& text, const std::string& source_name);

    const std::string& source() const { return source_; }
    std::set<std::string> placeholders() const;

    // Checks the template uses exactly `names`: a missing one or an unknown one is an error, so an
    // edited template fails when loaded, not halfway through a run.
    Status expect_placeholders(const std::set<std::string>& names) const;

    // Values are inserted verbatim (never re-scanned for placeholders). Every placeholder needs a
    // value and every value a placeholder.
    Result<std::vector<ChatMessage>> render(const std::map<std::string, std::string>& values) const;

private:
    struct Piece {
        bool is_placeholder = false;
        std::string text;  // literal text, or the placeholder's name
        int line = 0;
    };
    struct Section {
        std::string role;
        std::vector<Piece> pieces;
    };
    std::string source_;
    std::vector<Section> sections_;
};

// Where prompt files live: `explicit_dir` if given, else the resource locator's answer
// ($KERNELPRO_PROMPTS_DIR, <executable>/../share/kernelpro/prompts, the build tree's).
Result<std::filesystem::path> find_prompts_directory(const std::filesystem::path& explicit_dir = {});

}  // namespace kp::llm
