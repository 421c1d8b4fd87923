#include "llm/prompt_template.h"

#include <fmt/format.h>

#include <cctype>
#include <sstream>

#include "common/files.h"
#include "common/resource_locator.h"

namespace kp::llm {

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
    const auto begin = s.find_first_not_of(" \t\r");
    if (begin == std::string::npos) return "";
    const auto end = s.find_last_not_of(" \t\r");
    return s.substr(begin, end - begin + 1);
}

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

bool is_comment_line(const std::string& trimmed) {
    return trimmed.rfind("<!--", 0) == 0 && trimmed.size() >= 7 && trimmed.compare(trimmed.size() - 3, 3, "-->") == 0;
}

// Strips a trailing run of blank lines and a leading one, so section markers need no care.
std::string trim_blank_lines(const std::string& s) {
    const auto begin = s.find_first_not_of("\n");
    if (begin == std::string::npos) return "";
    const auto end = s.find_last_not_of("\n \t");
    return s.substr(begin, end - begin + 1) + "\n";
}

}  // namespace

Result<PromptTemplate> PromptTemplate::load(const fs::path& path) {
    auto text = read_text_file(path);
    if (!text) return make_error("prompt template: " + text.error().message);
    return parse(*text, path.string());
}

Result<PromptTemplate> PromptTemplate::parse(const std::string& text, const std::string& source) {
    PromptTemplate t;
    t.source_ = source;
    std::istringstream in(text);
    std::string line;
    int number = 0;
    Section current{"user", {}};
    bool saw_marker = false;
    auto flush = [&] {
        if (!current.pieces.empty()) t.sections_.push_back(std::move(current));
        current = Section{};
    };
    while (std::getline(in, line)) {
        ++number;
        const std::string trimmed = trim(line);
        if (trimmed == "<!-- kp:system -->" || trimmed == "<!-- kp:user -->") {
            if (!saw_marker) {
                for (const auto& piece : current.pieces)
                    if (piece.is_placeholder || piece.text.find_first_not_of(" \t\r\n") != std::string::npos)
                        return make_error(fmt::format("{}:{}: text before the first <!-- kp:... --> marker",
                                                      source, piece.line));
                current.pieces.clear();
            }
            saw_marker = true;
            flush();
            current.role = trimmed == "<!-- kp:system -->" ? "system" : "user";
            continue;
        }
        if (trimmed.rfind("<!-- kp:", 0) == 0)
            return make_error(fmt::format("{}:{}: unknown marker '{}' (expected <!-- kp:system --> or <!-- kp:user -->)",
                                          source, number, trimmed));
        if (is_comment_line(trimmed)) continue;
        // Split the line into literal text and placeholders.
        std::size_t pos = 0;
        while (pos <= line.size()) {
            const auto open = line.find("{{", pos);
            const auto close = open == std::string::npos ? std::string::npos : line.find("}}", open + 2);
            std::string inner = close == std::string::npos ? "" : trim(line.substr(open + 2, close - open - 2));
            if (open == std::string::npos || close == std::string::npos || !is_identifier(inner)) {
                const auto stop = open == std::string::npos ? line.size() : open + 2;
                current.pieces.push_back({false, line.substr(pos, stop - pos), number});
                if (open == std::string::npos) break;
                pos = stop;
                continue;
            }
            current.pieces.push_back({false, line.substr(pos, open - pos), number});
            current.pieces.push_back({true, inner, number});
            pos = close + 2;
        }
        current.pieces.push_back({false, "\n", number});
    }
    flush();
    if (t.sections_.empty()) return make_error(source + ": the template is empty");
    for (const auto& section : t.sections_)
        if (section.role == "system" && &section != &t.sections_.front())
            return make_error(source + ": the system section must come first");
    return t;
}

std::set<std::string> PromptTemplate::placeholders() const {
    std::set<std::string> names;
    for (const auto& section : sections_)
        for (const auto& piece : section.pieces)
            if (piece.is_placeholder) names.insert(piece.text);
    return names;
}

Status PromptTemplate::expect_placeholders(const std::set<std::string>& expected) const {
    const auto used = placeholders();
    std::vector<std::string> unknown, missing;
    for (const auto& name : used)
        if (!expected.count(name)) unknown.push_back("{{" + name + "}}");
    for (const auto& name : expected)
        if (!used.count(name)) missing.push_back("{{" + name + "}}");
    if (unknown.empty() && missing.empty()) return {};
    std::string message = source_ + ":";
    if (!unknown.empty()) message += fmt::format(" unknown placeholder {}", fmt::join(unknown, ", "));
    if (!unknown.empty() && !missing.empty()) message += ";";
    if (!missing.empty()) message += fmt::format(" missing placeholder {}", fmt::join(missing, ", "));
    std::vector<std::string> known;
    for (const auto& name : expected) known.push_back("{{" + name + "}}");
    return make_error(message + fmt::format(" (this template takes {})", fmt::join(known, ", ")));
}

Result<std::vector<ChatMessage>> PromptTemplate::render(const std::map<std::string, std::string>& values) const {
    const auto used = placeholders();
    for (const auto& [name, value] : values)
        if (!used.count(name))
            return make_error(source_ + ": a value for '" + name + "' was given, but the template has no {{" + name + "}}");
    std::vector<ChatMessage> messages;
    for (const auto& section : sections_) {
        std::string content;
        for (const auto& piece : section.pieces) {
            if (!piece.is_placeholder) {
                content += piece.text;
                continue;
            }
            auto it = values.find(piece.text);
            if (it == values.end())
                return make_error(fmt::format("{}:{}: no value for {{{{{}}}}}", source_, piece.line, piece.text));
            content += it->second;
        }
        content = trim_blank_lines(content);
        if (!content.empty()) messages.push_back({section.role, content});
    }
    return messages;
}

Result<fs::path> find_prompts_directory(const fs::path& explicit_dir) {
    if (!explicit_dir.empty()) return explicit_dir;
    return locate_prompts_directory();
}

}  // namespace kp::llm
