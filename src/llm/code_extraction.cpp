#include "llm/code_extraction.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace kp::llm {

namespace {

std::vector<std::string> split_lines(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string line(text.substr(start, end - start));
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(std::move(line));
        start = end + 1;
    }
    return lines;
}

std::string trim(std::string_view s) {
    const auto begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string_view::npos) return "";
    const auto end = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(begin, end - begin + 1));
}

struct Fence {
    char character = 0;
    std::size_t length = 0;
    std::string info;
};

// A fence line: optional indentation, then three or more ` or ~, then an optional label.
std::optional<Fence> read_fence(const std::string& line) {
    const std::string t = trim(line);
    if (t.size() < 3 || (t[0] != '`' && t[0] != '~')) return std::nullopt;
    const char c = t[0];
    std::size_t n = 0;
    while (n < t.size() && t[n] == c) ++n;
    if (n < 3) return std::nullopt;
    return Fence{c, n, trim(std::string_view(t).substr(n))};
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

bool is_value_token(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '_' || c == '.' || c == '+' || c == '-';
    });
}

}  // namespace

std::vector<CodeBlock> find_code_blocks(std::string_view reply) {
    std::vector<CodeBlock> blocks;
    const auto lines = split_lines(reply);
    std::optional<Fence> open;
    CodeBlock current;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto fence = read_fence(lines[i]);
        if (!open) {
            if (!fence) continue;
            open = fence;
            current = CodeBlock{};
            // The label's first word: "cuda", "cpp title=x.cu" -> "cpp".
            current.language = lower(fence->info.substr(0, fence->info.find_first_of(" \t{")));
            current.first_line = static_cast<int>(i + 1);
            continue;
        }
        if (fence && fence->character == open->character && fence->length >= open->length && fence->info.empty()) {
            blocks.push_back(std::move(current));
            open.reset();
            continue;
        }
        current.code += lines[i];
        current.code += '\n';
    }
    if (open) {
        current.closed = false;
        blocks.push_back(std::move(current));
    }
    return blocks;
}

int brace_balance(std::string_view code) {
    int depth = 0;
    enum { normal, line_comment, block_comment, string_literal, char_literal } state = normal;
    for (std::size_t i = 0; i < code.size(); ++i) {
        const char c = code[i];
        const char next = i + 1 < code.size() ? code[i + 1] : '\0';
        switch (state) {
            case normal:
                if (c == '/' && next == '/') state = line_comment, ++i;
                else if (c == '/' && next == '*') state = block_comment, ++i;
                else if (c == '"') state = string_literal;
                else if (c == '\'') state = char_literal;
                else if (c == '{') ++depth;
                else if (c == '}') --depth;
                break;
            case line_comment:
                if (c == '\n') state = normal;
                break;
            case block_comment:
                if (c == '*' && next == '/') state = normal, ++i;
                break;
            case string_literal:
            case char_literal:
                if (c == '\\') ++i;
                else if ((state == string_literal && c == '"') || (state == char_literal && c == '\'') || c == '\n')
                    state = normal;
                break;
        }
    }
    return depth;
}

Result<ExtractedKernel> extract_kernel_source(std::string_view reply, bool hit_token_limit) {
    const auto blocks = find_code_blocks(reply);
    const CodeBlock* best = nullptr;
    for (const auto& block : blocks)
        if (block.code.find("kp_forward") != std::string::npos && (!best || block.code.size() >= best->code.size()))
            best = &block;

    if (!best) {
        if (!blocks.empty() && !blocks.back().closed)
            return make_error(fmt::format("the reply {} inside the code block opened at line {}, before kp_forward",
                                          hit_token_limit ? "hit the output token limit" : "was cut off",
                                          blocks.back().first_line));
        if (!blocks.empty())
            return make_error(fmt::format("the reply has {} code block{} but none defines kp_forward", blocks.size(),
                                          blocks.size() == 1 ? "" : "s"));
        const bool looks_like_code = reply.find("kp_forward") != std::string_view::npos &&
                                     (reply.find("#include") != std::string_view::npos ||
                                      reply.find("__global__") != std::string_view::npos);
        if (!looks_like_code) return make_error("the reply has no code block (expected the kernel in a ```cuda block)");
        if (hit_token_limit || brace_balance(reply) != 0)
            return make_error("the reply is bare code that was cut off (unbalanced braces)");
        return ExtractedKernel{trim(reply) + "\n", "", false};
    }
    if (!best->closed) {
        if (hit_token_limit)
            return make_error(fmt::format("the reply hit the output token limit inside the code block opened at line {}",
                                          best->first_line));
        const int balance = brace_balance(best->code);
        if (balance != 0)
            return make_error(fmt::format("the code block opened at line {} is cut off: no closing fence and {} "
                                          "unclosed brace{}",
                                          best->first_line, balance, balance == 1 ? "" : "s"));
    }
    if (trim(best->code).empty()) return make_error("the code block is empty");
    return ExtractedKernel{best->code, best->language, true};
}

Result<std::vector<TunableDeclaration>> parse_tunables(std::string_view source) {
    std::vector<TunableDeclaration> tunables;
    std::set<std::string> seen;
    const auto lines = split_lines(source);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string t = trim(lines[i]);
        if (t.rfind("//", 0) != 0) continue;
        const std::string body = trim(std::string_view(t).substr(2));
        if (body.rfind("kp:tune", 0) != 0) continue;
        const int line = static_cast<int>(i + 1);
        const std::string declaration = trim(std::string_view(body).substr(7));
        const auto eq = declaration.find('=');
        auto bad = [&](const std::string& why) {
            return make_error(fmt::format("line {}: '{}': {} (expected // kp:tune NAME=v1,v2,...)", line, t, why));
        };
        if (eq == std::string::npos) return bad("no '='");
        TunableDeclaration tunable{trim(declaration.substr(0, eq)), {}, line};
        if (!is_identifier(tunable.name)) return bad("the name must be an identifier");
        if (!seen.insert(tunable.name).second) return bad("declared twice");
        std::stringstream values(declaration.substr(eq + 1));
        std::string value;
        while (std::getline(values, value, ',')) {
            value = trim(value);
            if (!is_value_token(value)) return bad("bad value '" + value + "'");
            tunable.values.push_back(value);
        }
        if (tunable.values.empty()) return bad("no values");
        tunables.push_back(std::move(tunable));
    }
    return tunables;
}

std::string prose_outside_code_blocks(std::string_view reply) {
    std::string prose;
    bool inside = false;
    std::optional<Fence> open;
    for (const auto& line : split_lines(reply)) {
        const auto fence = read_fence(line);
        if (!inside && fence) {
            inside = true;
            open = fence;
            continue;
        }
        if (inside) {
            if (fence && fence->character == open->character && fence->length >= open->length && fence->info.empty())
                inside = false;
            continue;
        }
        prose += line + "\n";
    }
    return trim(prose);
}

Result<nlohmann::json> extract_json_object(std::string_view reply) {
    const auto blocks = find_code_blocks(reply);
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
        if (it->language != "json" && it->language != "") continue;
        auto j = nlohmann::json::parse(it->code, nullptr, false);
        if (!j.is_discarded() && j.is_object()) return j;
    }
    // No usable block: try the text from each '{' (last first) to the last '}'.
    const auto close = reply.rfind('}');
    if (close != std::string_view::npos) {
        for (auto open = reply.rfind('{', close); open != std::string_view::npos;
             open = open == 0 ? std::string_view::npos : reply.rfind('{', open - 1)) {
            auto j = nlohmann::json::parse(reply.substr(open, close - open + 1), nullptr, false);
            if (!j.is_discarded() && j.is_object()) return j;
        }
    }
    return make_error("the reply holds no JSON object");
}

}  // namespace kp::llm
